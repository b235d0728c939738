import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BlobUnavailableError } from '../../../src/server/storage/blob-store.js';
import { relayBody } from '../../../src/server/storage/s3/body-relay.js';
import { patternBytes } from '../../helpers/bytes.js';
import {
  fetchAnswer,
  leaveOnceAsked,
  readPausingOnce,
  readUntilCut,
} from '../../helpers/relayed-answer.js';

const IDLE_MS = 300;
const bytes = Buffer.from(patternBytes(8 * 1024 * 1024, 11));

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A bucket (`/whole`: all of `bytes`; `/stall`: the first 100 KiB, then nothing) and the
 * CDN in front of it relaying each body; `relayed` holds each relay's outcome.
 */
describe('relaying a bucket answer to the client (at scale)', () => {
  let bucket: Server;
  let cdn: Server;
  let cdnUrl: string;
  const relayed: Promise<void>[] = [];
  const bucketAnswers: ServerResponse[] = [];

  before(async () => {
    bucket = createServer((request, response) => {
      bucketAnswers.push(response);
      response.writeHead(200, { 'content-length': String(bytes.length) });
      if (request.url === '/stall') response.write(bytes.subarray(0, 100 * 1024));
      else response.end(bytes);
    });
    const bucketUrl = await listen(bucket);
    cdn = createServer(async (request, response) => {
      // `/late`: the client leaves while the bucket's head is awaited (of `/stall`, which
      // keeps its connection open), and the relay begins after.
      const late = request.url === '/late';
      const body = await fetchAnswer(`${bucketUrl}${late ? '/stall' : request.url}`);
      if (late) {
        if (!response.destroyed) await once(response, 'close');
        const relay = relayBody(body, response, IDLE_MS);
        relay.catch(() => {});
        relayed.push(relay);
        return;
      }
      response.writeHead(200, { 'content-length': String(bytes.length) });
      const relay = relayBody(body, response, IDLE_MS);
      relay.catch(() => {});
      relayed.push(relay);
    });
    cdnUrl = await listen(cdn);
  });
  after(() => {
    cdn.closeAllConnections();
    bucket.closeAllConnections();
    cdn.close();
    bucket.close();
  });

  it('sends every byte, and waits for a client slow to read without calling it a stall', async () => {
    // Several idle timeouts without reading: the bucket is not the one waiting.
    const got = await readPausingOnce(`${cdnUrl}/whole`, 4 * IDLE_MS);
    assert.ok(got.equals(bytes));
    await relayed.at(-1);
  });

  it('cuts the answer when the bucket stops sending midway', async () => {
    const { got, cut } = await readUntilCut(`${cdnUrl}/stall`);
    assert.ok(cut, 'the client sees the answer cut, not ended');
    assert.equal(got, 100 * 1024);
    await assert.rejects(relayed.at(-1) as Promise<void>, BlobUnavailableError);
  });

  it('drops the bucket answer when the client goes away', { timeout: 10_000 }, async () => {
    const before = bucketAnswers.length;
    const answer = await fetchAnswer(`${cdnUrl}/stall`);
    await new Promise((resolve) => answer.once('data', resolve));
    const bucketAnswer = bucketAnswers[before] as ServerResponse;
    const dropped = new Promise((resolve) => bucketAnswer.once('close', resolve));
    answer.destroy();
    // Well before the idle timeout: the client's leaving, not the stall, ended it.
    const startedAt = Date.now();
    await dropped;
    await relayed.at(-1);
    assert.ok(Date.now() - startedAt < IDLE_MS, 'dropped at once');
  });

  it('drops the bucket answer when the client left before the relay began', {
    timeout: 10_000,
  }, async () => {
    const bucketAnswer = await leaveOnceAsked(`${cdnUrl}/late`, bucketAnswers);
    const dropped = new Promise((resolve) => bucketAnswer.once('close', resolve));
    // A write to the gone client never drains: the relay used to pause the bucket's body
    // and wait for that for ever, holding its connection, its clock stopped.
    await dropped;
    await relayed.at(-1);
  });
});
