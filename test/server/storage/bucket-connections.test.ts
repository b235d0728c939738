import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BlobUnavailableError } from '../../../src/server/storage/blob-store.js';
import type { AnswerHead } from '../../../src/server/storage/s3/answer-head.js';
import {
  BucketConnectionError,
  BucketConnections,
  type BucketConnectionsOptions,
  DECLINED,
  type OpenedAnswer,
} from '../../../src/server/storage/s3/bucket-connections.js';
import { patternBytes } from '../../helpers/bytes.js';
import {
  fetchAnswer,
  leaveOnceAsked,
  readAll,
  readPausingOnce,
  readUntilCut,
} from '../../helpers/relayed-answer.js';

/**
 * The stall rule's clock for the paths that test it (`/stall`, `/big`); the others relay
 * through connections with a clock no loaded machine reaches, as this process is also the
 * bucket (five answers at once once waited over 300 ms for their heads at load 35).
 */
const IDLE_MS = 1_000;
const GENEROUS_IDLE_MS = 30_000;
const TIMED_PATHS = ['/stall', '/big'];
const CHUNK = 64 * 1024;
const bytes = Buffer.from(patternBytes(4 * 1024 * 1024 + 17, 5));
/** More than loopback's socket buffers hold: a client that stops reading holds the relay. */
const big = Buffer.from(patternBytes(40 * 1024 * 1024 + 3, 6));

/** Connections to the bucket listening on `port`, one at most unless `options` say more. */
function connectionsTo(
  port: number,
  options: Partial<BucketConnectionsOptions> = {},
): BucketConnections {
  return new BucketConnections({
    host: '127.0.0.1',
    port,
    maxSockets: 1,
    chunkBytes: CHUNK,
    idleMs: IDLE_MS,
    ...options,
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** What the CDN relays: a range's bytes. */
const accept = (head: AnswerHead) => head.status === 206;
const get_ = (path: string) => `GET ${path} HTTP/1.1\r\nHost: bucket\r\n\r\n`;

/**
 * A bucket over loopback (`node:http`, each path a behaviour: `/whole` all of `bytes`, `/big` all of `big`,
 * `/stall` 100 KiB then nothing, `/missing` a 404, `/chunked` a body without a length,
 * `/split-head` its head in two writes 50 ms apart, then the connection closed) and a CDN in front of it relaying
 * through `BucketConnections`; `relayed` holds each relay's outcome.
 */
describe('BucketConnections: relaying the bucket over kept-alive connections (at scale)', () => {
  let bucket: Server;
  let cdn: Server;
  let cdnUrl: string;
  let connections: BucketConnections;
  let timedConnections: BucketConnections;
  const bucketSockets = new Set<Socket>();
  /** Each answer the bucket gave, with its connection (an answer lets go of it once sent). */
  const bucketAnswers: { response: ServerResponse; socket: Socket }[] = [];
  const relayed: Promise<void>[] = [];
  const opened: (OpenedAnswer | typeof DECLINED | Error)[] = [];

  before(async () => {
    bucket = createServer((request, response) => {
      bucketAnswers.push({ response, socket: request.socket });
      if (request.url === '/missing') {
        response.writeHead(404, { 'content-type': 'application/xml' });
        response.end('<Error><Code>NoSuchKey</Code></Error>');
      } else if (request.url === '/chunked') {
        response.writeHead(200);
        response.end(bytes.subarray(0, 1000));
      } else if (request.url === '/split-head') {
        // Written past `node:http`, which then never ends the answer: the connection closes.
        const head = `HTTP/1.1 206 Partial Content\r\nConnection: close\r\nContent-Length: ${bytes.length}\r\n`;
        response.socket?.write(head.slice(0, 20));
        setTimeout(() => {
          response.socket?.write(head.slice(20));
          response.socket?.write('\r\n');
          response.socket?.end(bytes);
        }, 50);
      } else if (request.url === '/big') {
        response.writeHead(206, { 'content-length': String(big.length) });
        response.end(big);
      } else {
        response.writeHead(206, { 'content-length': String(bytes.length) });
        if (request.url === '/stall') response.write(bytes.subarray(0, 100 * 1024));
        else response.end(bytes);
      }
    });
    // The bucket keeps idle connections longer than these tests last: only we close them.
    bucket.keepAliveTimeout = 60_000;
    bucket.on('connection', (socket: Socket) => {
      bucketSockets.add(socket);
      socket.on('close', () => bucketSockets.delete(socket));
    });
    const port = await listen(bucket);
    connections = connectionsTo(port, { maxSockets: 2, idleMs: GENEROUS_IDLE_MS });
    timedConnections = connectionsTo(port, { maxSockets: 2 });
    cdn = createServer(async (request, response) => {
      let answer: OpenedAnswer | typeof DECLINED;
      // `/late`: the client leaves while the bucket's head (of `/stall`, which then keeps its
      // connection open) is awaited, and the relay begins after.
      const late = request.url === '/late';
      try {
        const path = late ? '/stall' : (request.url ?? '/');
        const through = TIMED_PATHS.includes(path) && !late ? timedConnections : connections;
        answer = await through.open(get_(path), accept);
      } catch (error) {
        opened.push(error as Error);
        response.writeHead(502).end();
        return;
      }
      opened.push(answer);
      if (answer === DECLINED) {
        response.writeHead(404).end();
        return;
      }
      if (late && !response.destroyed) await once(response, 'close');
      if (!late) response.writeHead(200, { 'content-length': String(answer.head.length) });
      const relay = answer.sendTo(response);
      relay.catch(() => {});
      relayed.push(relay);
    });
    cdnUrl = `http://127.0.0.1:${await listen(cdn)}`;
  });
  after(() => {
    connections.close();
    timedConnections.close();
    cdn.closeAllConnections();
    bucket.closeAllConnections();
    cdn.close();
    bucket.close();
  });

  it('relays every byte, one answer after another on the same connection', async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await fetchAnswer(`${cdnUrl}/whole`);
      assert.equal(answer.statusCode, 200);
      assert.ok((await readAll(answer)).equals(bytes));
      await relayed.at(-1);
    }
    assert.equal(bucketSockets.size, 1, 'one kept-alive connection served the three');
  });

  it('relays several answers at once, no more connections than allowed', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => fetchAnswer(`${cdnUrl}/whole`).then(readAll)),
    );
    for (const answer of answers) assert.ok(answer.equals(bytes));
    assert.ok(bucketSockets.size <= 2, `${bucketSockets.size} connections`);
  });

  it('waits for a client slow to read without calling it a stall, every byte intact', async () => {
    // Each buffer is read into again only once the client's socket took its bytes: with
    // the client stopped, the kernel's buffers fill and the relay must wait.
    // Several idle timeouts without reading: the bucket is not the one waiting.
    const got = await readPausingOnce(`${cdnUrl}/big`, 4 * IDLE_MS);
    assert.ok(got.equals(big));
    await relayed.at(-1);
  });

  it('reads a head that comes in pieces', async () => {
    const answer = await fetchAnswer(`${cdnUrl}/split-head`);
    assert.ok((await readAll(answer)).equals(bytes));
  });

  it('declines an error answer or a body without a length, and closes that connection', async () => {
    for (const path of ['/missing', '/chunked']) {
      const before = bucketAnswers.length;
      const answer = await fetchAnswer(`${cdnUrl}${path}`);
      await readAll(answer);
      assert.equal(answer.statusCode, 404, path);
      assert.equal(opened.at(-1), DECLINED);
      const { socket } = bucketAnswers[before] as { socket: Socket };
      if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
    }
    // Still serving afterwards.
    assert.ok((await readAll(await fetchAnswer(`${cdnUrl}/whole`))).equals(bytes));
  });

  it('cuts the answer when the bucket stops sending midway', async () => {
    const { got, cut } = await readUntilCut(`${cdnUrl}/stall`);
    assert.ok(cut, 'the client sees the answer cut, not ended');
    assert.equal(got, 100 * 1024);
    await assert.rejects(relayed.at(-1) as Promise<void>, BlobUnavailableError);
  });

  it('drops the bucket connection when the client goes away', { timeout: 10_000 }, async () => {
    const before = bucketAnswers.length;
    const answer = await fetchAnswer(`${cdnUrl}/stall`);
    await new Promise((resolve) => answer.once('data', resolve));
    const { response } = bucketAnswers[before] as { response: ServerResponse };
    const dropped = new Promise((resolve) => response.once('close', resolve));
    answer.destroy();
    // Well before the idle timeout: the client's leaving, not the stall, ended it.
    const startedAt = Date.now();
    await dropped;
    await relayed.at(-1);
    assert.ok(Date.now() - startedAt < IDLE_MS, 'dropped at once');
    assert.ok((await readAll(await fetchAnswer(`${cdnUrl}/whole`))).equals(bytes));
  });

  it('opens a new connection when the bucket closed a kept-alive one', async () => {
    assert.ok((await readAll(await fetchAnswer(`${cdnUrl}/whole`))).equals(bytes));
    const closing = [...bucketSockets].map(
      (socket) => new Promise((resolve) => socket.once('close', resolve)),
    );
    bucket.closeAllConnections();
    await Promise.all(closing);
    // The close was seen by the idle connection: the next answer comes on a new one.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok((await readAll(await fetchAnswer(`${cdnUrl}/whole`))).equals(bytes));
    assert.equal(bucketSockets.size, 1);
  });

  it('closes a connection left idle for keepIdleMs', { timeout: 10_000 }, async () => {
    const port = (bucket.address() as AddressInfo).port;
    const shortLived = connectionsTo(port, { keepIdleMs: 100 });
    bucket.closeAllConnections();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answer = await shortLived.open(get_('/whole'), accept);
    assert.notEqual(answer, DECLINED);
    const sink = createServer((_request, response) => {
      if (answer !== DECLINED) void answer.sendTo(response);
    });
    const sinkPort = await listen(sink);
    assert.ok((await readAll(await fetchAnswer(`http://127.0.0.1:${sinkPort}/`))).equals(bytes));
    sink.close();
    assert.equal(bucketSockets.size, 1, 'kept open after its answer');
    const closed = new Promise((resolve) => [...bucketSockets][0]?.once('close', resolve));
    await closed;
    assert.equal(bucketSockets.size, 0);
    shortLived.close();
  });

  it('rejects, saying the connection was new, when the bucket cannot be reached', async () => {
    const unreachable = connectionsTo(1);
    const failure = await unreachable.open(get_('/whole'), accept).catch((error) => error);
    assert.ok(failure instanceof BucketConnectionError);
    assert.equal(failure.reused, false);
    unreachable.close();
  });

  it('drops the bucket connection when the client left before the relay began', {
    timeout: 10_000,
  }, async () => {
    const { response } = await leaveOnceAsked(`${cdnUrl}/late`, bucketAnswers);
    const dropped = new Promise((resolve) => response.once('close', resolve));
    // The relay used to miss the client's 'close', gone by then, and wait for the bucket
    // (30 s of silence here) with nobody to send to.
    await dropped;
    await relayed.at(-1);
  });

  it('waits for a busy connection only idleMs, and not at all once closed', {
    timeout: 10_000,
  }, async () => {
    const port = (bucket.address() as AddressInfo).port;
    const one = connectionsTo(port);
    // Its one connection is held by an answer not yet sent on (a client that never reads
    // would hold it as long).
    const held = await one.open(get_('/whole'), accept);
    assert.notEqual(held, DECLINED);
    const waited = await one.open(get_('/whole'), accept).catch((error) => error);
    assert.ok(waited instanceof BucketConnectionError, String(waited));
    assert.equal(waited.reused, false);
    assert.match(waited.message, /None of the 1 connections to the bucket came free/);
    const waiting = one.open(get_('/whole'), accept);
    one.close();
    await assert.rejects(waiting, /closed/);
    bucket.closeAllConnections();
  });
});
