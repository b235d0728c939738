// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FileRecord, SignResponse, UploadResponse } from '../../../src/api/types.js';
import { startClamd, type TestClamd } from '../../helpers/clamd.js';
import { scaleDeployment } from '../../helpers/scale.js';
import { SCALE } from '../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  type ChildService,
  json,
  patternBytes,
  spawnService,
} from '../../helpers/service.js';

const MiB = 1024 * 1024;
const clamd = await startClamd();

/** An HTTP exchange whose body the test sends when it likes, on a connection of its own. */
interface SlowRequest {
  /** Writes `bytes` of the body now; resolves once they are handed to the kernel. */
  send(bytes: Uint8Array): Promise<void>;
  end(): void;
  /** The answer, or the error that cut the exchange. */
  answer: Promise<{ status: number; body: string; connection: string | undefined }>;
}

function slowRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  length: number,
): SlowRequest {
  const request = httpRequest(url, {
    method,
    // A connection of its own: no other exchange of the test waits behind this one.
    agent: false,
    headers: { ...headers, 'Content-Length': String(length) },
  });
  const answer = new Promise<{ status: number; body: string; connection: string | undefined }>(
    (resolve, reject) => {
      request.once('error', reject);
      request.once('response', (response: IncomingMessage) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.once('error', reject);
        response.once('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body,
            connection: response.headers.connection,
          }),
        );
      });
    },
  );
  // Settled as soon as it is: an exchange the test expects cut must not reject unheard.
  answer.catch(() => {});
  return {
    send: (bytes) =>
      new Promise((resolve, reject) =>
        request.write(bytes, (error) => (error ? reject(error) : resolve())),
      ),
    end: () => request.end(),
    answer,
  };
}

/** A GET on a new connection: its status and `Connection` header, or the connection's error code. */
function freshGet(
  url: string,
): Promise<{ status: number; connection?: string } | { error: string }> {
  return new Promise((resolve) => {
    const request = httpRequest(url, { agent: false }, (response) => {
      response.resume();
      response.once('end', () =>
        resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
      );
    });
    request.once('error', (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message }),
    );
    request.end();
  });
}

/** Whether a new TCP connection to `url`'s port is refused (the listener is closed). */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({
      host: hostname === 'localhost' ? '127.0.0.1' : hostname,
      port: +port,
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A backend's webhook endpoint that holds its first request until the test releases it
 * (a receiver that answers slowly) and answers every other one at once.
 */
async function startSlowReceiver() {
  const bodies: string[] = [];
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let answeredFirst = false;
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.once('end', () => {
      bodies.push(body);
      const answer = () => response.writeHead(204).end();
      if (bodies.length > 1) return answer();
      released.then(() => {
        answer();
        answeredFirst = true;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    bodies,
    release,
    answeredFirst: () => answeredFirst,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * SIGTERM for real: the service is its own process (`npm run server`), stopped while a
 * 64 MiB upload (a part PUT; at scale, where parts go to the bucket, a one-request upload),
 * a scan (clamd held still by SIGSTOP, so it is surely under way) and a webhook delivery (to
 * a receiver that holds its answer) are under way. It is unready at once, still serves new
 * connections for `FILEHOST_DRAIN_SECONDS`, then refuses them while all three finish, then
 * exits 0; started again on its stores, nothing was lost. The deploy of one of two instances
 * behind nginx is `deploy-at-scale.test.ts`.
 */
describe('draining: SIGTERM finishes what is under way, then exits 0', {
  skip: 'skip' in clamd ? clamd.skip : false,
}, () => {
  const daemon = clamd as TestClamd;
  let dataDir: string;
  let receiver: Awaited<ReturnType<typeof startSlowReceiver>>;
  let service: ChildService | undefined;
  let deployment: Record<string, string> = {};

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-draining-'));
    receiver = await startSlowReceiver();
    if (SCALE) deployment = (await scaleDeployment([ALLOWED_ORIGIN])).env;
  });
  afterEach(() => {
    daemon.resume();
    service?.process.kill('SIGKILL');
  });
  after(async () => {
    await receiver.close();
    await daemon.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async (extra: Record<string, string> = {}) => {
    service = await spawnService({
      FILEHOST_DATA_DIR: dataDir,
      FILEHOST_PART_SIZE: String(64 * MiB),
      FILEHOST_CLAMD: daemon.socket,
      FILEHOST_WEBHOOK_URL: receiver.url,
      FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
      FILEHOST_LOG_LEVEL: 'info',
      // The held delivery must outlast the whole stop, not time out and be sent again.
      FILEHOST_WEBHOOK_TIMEOUT: '90',
      // Neither the held scan nor the held part may run into their own limits on a loaded
      // machine: only the stop is under test.
      FILEHOST_CLAMD_TIMEOUT: '180',
      FILEHOST_BODY_PROGRESS_WINDOW: '180',
      FILEHOST_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
      ...deployment,
      ...extra,
    });
    return service;
  };
  const auth = (s: ChildService) => ({ Authorization: `Bearer ${s.secretKey}` });

  async function sign(s: ChildService, name: string, size: number): Promise<SignResponse> {
    return json<SignResponse>(
      await fetch(`${s.apiUrl}/v1/uploads/sign`, {
        method: 'POST',
        headers: { ...auth(s), 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, size }),
      }),
      201,
    );
  }

  /** `bytes` sent by `request`, all but the last MiB: under way until `finish`. */
  async function held(request: SlowRequest, bytes: Uint8Array) {
    const kept = bytes.length - MiB;
    for (let offset = 0; offset < kept; offset += 4 * MiB) {
      await request.send(bytes.subarray(offset, Math.min(kept, offset + 4 * MiB)));
    }
    return {
      answer: request.answer,
      /** Sends the rest over about `ms`: a slow link. */
      async finish(ms: number) {
        const step = 64 * 1024;
        for (let offset = kept; offset < bytes.length; offset += step) {
          await request.send(bytes.subarray(offset, offset + step));
          await new Promise((resolve) => setTimeout(resolve, ms / (MiB / step)));
        }
        request.end();
      },
    };
  }

  /** A part PUT of `bytes` (one part) under way: `held`. */
  async function partPutUnderWay(s: ChildService, bytes: Uint8Array) {
    const signed = await sign(s, 'big.bin', bytes.length);
    assert.equal(signed.parts.length, 1);
    const part = signed.parts[0] as SignResponse['parts'][number];
    const put = await held(slowRequest(part.url, 'PUT', part.headers, bytes.length), bytes);
    return { signed, put };
  }

  /**
   * 64 MiB arriving through the service, under way (`held`): embedded a part PUT, completed
   * by `stored` on the instance started after the stop; at scale a one-request upload (a
   * part PUT goes to the bucket there, past every instance). `stored` answers its file's id.
   */
  async function bigUploadUnderWay(s: ChildService, bytes: Uint8Array) {
    if (!SCALE) {
      const { signed, put } = await partPutUnderWay(s, bytes);
      return {
        ...put,
        answered: 200,
        async stored(again: ChildService): Promise<string> {
          const completed = await json<FileRecord>(
            await fetch(`${again.apiUrl}/v1/uploads/${signed.id}/complete`, {
              method: 'POST',
              headers: auth(again),
            }),
          );
          assert.equal(completed.status, 'ready');
          return signed.id;
        },
      };
    }
    const request = slowRequest(
      `${s.apiUrl}/v1/upload`,
      'POST',
      { ...auth(s), 'X-Filename': 'big.bin' },
      bytes.length,
    );
    const upload = await held(request, bytes);
    return {
      ...upload,
      answered: 201,
      stored: async () => (JSON.parse((await upload.answer).body) as UploadResponse).id,
    };
  }

  const signalled = (s: ChildService) =>
    until(() => /SIGTERM: stopping filehost/.test(s.output()), 5000, 'the stop begins');

  it('SIGTERM with a 64 MiB upload, a scan and a webhook delivery under way: all three finish, then exit 0', async () => {
    const s = await start({ FILEHOST_DRAIN_SECONDS: '5', FILEHOST_SHUTDOWN_SECONDS: '90' });

    // A webhook delivery under way: the first upload's event, held by its receiver.
    const first = await json<UploadResponse>(
      await fetch(`${s.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: { ...auth(s), 'X-Filename': 'first.txt' },
        body: 'the first file',
      }),
      201,
    );
    await until(() => receiver.bodies.length === 1, 10_000, 'the delivery reaches its receiver');
    assert.ok(receiver.bodies[0]?.includes(first.id));

    // A scan under way: a 16 MiB upload's bytes are all in, and clamd is held still.
    const scanned = patternBytes(16 * MiB, 7);
    daemon.pause();
    const scanning = slowRequest(
      `${s.apiUrl}/v1/upload`,
      'POST',
      { ...auth(s), 'X-Filename': 'scanned.bin' },
      scanned.length,
    );
    await scanning.send(scanned);
    scanning.end();

    // 64 MiB arriving: all but its last MiB sent.
    const big = patternBytes(64 * MiB, 9);
    const putting = await bigUploadUnderWay(s, big);
    // The service has read what was sent (the scan's body, the part's), not only the kernel.
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const signalledAt = Date.now();
    s.process.kill('SIGTERM');
    await signalled(s);
    // Unready at once, on both ports, and not failing: stopping.
    for (const url of [s.apiUrl, s.cdnUrl]) {
      const ready = await fetch(`${url}/readyz`);
      assert.equal(ready.status, 503);
      assert.deepEqual(await ready.json(), { status: 'draining', failing: [] });
    }
    // Generous: the machine may be loaded; the drain (5 s) is the real bound.
    assert.ok(Date.now() - signalledAt < 4500, 'unready within moments of the signal');
    // New connections are still served while a load balancer notices, each one closed
    // after its answer.
    const during = await freshGet(`${s.apiUrl}/healthz`);
    assert.deepEqual(during, { status: 200, connection: 'close' });

    // Past the drain the listeners close: a connection attempt is refused, which a proxy
    // sends to another instance, while all three are still under way.
    await until(() => refused(s.apiUrl), 10_000, 'the API stops listening');
    assert.ok(Date.now() - signalledAt >= 4900, 'served for the whole drain');
    assert.equal(await refused(s.cdnUrl), true);
    assert.equal(s.process.exitCode, null, 'still running: three things are under way');
    assert.equal(receiver.answeredFirst(), false);

    // Each finishes, slowly, after the listeners closed.
    daemon.resume();
    const stored = json<UploadResponse>(
      await scanning.answer.then((answer) => new Response(answer.body, { status: answer.status })),
      201,
    );
    await putting.finish(1500);
    receiver.release();
    const put = await putting.answer;
    assert.equal(put.status, putting.answered, put.body);
    // This connection carried its last request: no other comes in on it.
    assert.equal(put.connection, 'close');
    const scannedRecord = await stored;

    const exit = await s.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, s.output());
    assert.equal(receiver.answeredFirst(), true);
    assert.match(s.output(), /filehost stopped/);
    assert.doesNotMatch(s.output(), /is cut/);

    // Started again on its data: the large upload is whole (embedded, its part completes
    // with its bytes), the scanned file is there, and the held delivery was recorded as
    // delivered (it is not sent again).
    const again = await start();
    const bigId = await putting.stored(again);
    assertSameBytes(await (await fetch(`${again.cdnUrl}/${bigId}`)).arrayBuffer(), big);
    assertSameBytes(
      await (await fetch(`${again.cdnUrl}/${scannedRecord.id}`)).arrayBuffer(),
      scanned,
    );
    await until(
      () => receiver.bodies.some((body) => body.includes(bigId)),
      10_000,
      'the completed upload is told of',
    );
    assert.equal(receiver.bodies.filter((body) => body.includes(first.id)).length, 1);
    again.process.kill('SIGTERM');
    assert.deepEqual(await again.exited, { code: 0, signal: null });
  });

  it('connections kept alive, or just opened, are answered through the drain and past it, never cut unanswered', async () => {
    const s = await start({ FILEHOST_DRAIN_SECONDS: '2' });
    const { port } = new URL(s.apiUrl);
    // One connection kept alive between requests, as a browser's or a proxy's pool keeps it.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ status: number; connection?: string; reused: boolean }>((resolve, reject) => {
        const request = httpRequest(`${s.apiUrl}${path}`, { agent }, (response) => {
          response.resume();
          response.once('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              connection: response.headers.connection,
              reused: request.reusedSocket,
            }),
          );
        });
        request.once('error', reject);
        request.end();
      });
    /** A connection of its own, and what comes back on it once `ask` sends a request. */
    const rawConnection = () => {
      const socket = connect({ host: '127.0.0.1', port: +port });
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
      });
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => {});
      return {
        socket,
        closed,
        received: () => received,
        ask: async () => {
          const before = received.length;
          socket.write('GET /healthz HTTP/1.1\r\nHost: filehost\r\n\r\n');
          await until(() => received.length > before || socket.destroyed, 5000, 'an answer');
          return received.slice(before);
        },
      };
    };
    const pooled = rawConnection();
    const opened = { socket: null as ReturnType<typeof rawConnection> | null };
    // An upload under way through the whole stop, so the service outlives its listeners.
    const held = slowRequest(
      `${s.apiUrl}/v1/upload`,
      'POST',
      { ...auth(s), 'X-Filename': 'held.bin' },
      MiB,
    );
    const heldBytes = patternBytes(MiB, 5);
    try {
      assert.deepEqual(await get('/healthz'), {
        status: 200,
        connection: 'keep-alive',
        reused: false,
      });
      assert.match(await pooled.ask(), /^HTTP\/1\.1 200/);
      await held.send(heldBytes.subarray(0, MiB / 2));

      s.process.kill('SIGTERM');
      await signalled(s);
      // Time enough for a close of the idle connections to reach this side, had there been one.
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The request a client sends on its pooled connection at that moment is answered, on
      // that connection, which then ends: none is cut on its way in.
      assert.deepEqual(await get('/readyz'), { status: 503, connection: 'close', reused: true });
      // A connection opened in the drain, its request not sent yet when the listener closes.
      opened.socket = rawConnection();
      await until(() => refused(s.apiUrl), 10_000, 'the API stops listening');
      // Past the drain, each is still answered (closed after its answer), as a proxy that
      // had them in its pool needs: one cut unanswered would be a POST it cannot resend.
      for (const connection of [pooled, opened.socket]) {
        const answer = await connection.ask();
        assert.match(
          answer,
          /^HTTP\/1\.1 200/,
          `answered past the drain: ${JSON.stringify(answer)}`,
        );
        assert.match(answer, /\r\nConnection: close\r\n/i);
        await connection.closed;
      }
      assert.equal(s.process.exitCode, null, 'the upload is still under way');
      await held.send(heldBytes.subarray(MiB / 2));
      held.end();
      assert.equal((await held.answer).status, 201);
      assert.deepEqual(await s.exited, { code: 0, signal: null }, s.output());
    } finally {
      agent.destroy();
      pooled.socket.destroy();
      opened.socket?.socket.destroy();
    }
  });

  const PART_THROUGH_SERVICE = SCALE ? 'at scale a part PUT goes to the bucket' : false;

  it('FILEHOST_DRAIN_SECONDS=0: stops listening at once, and the part PUT under way still finishes', {
    skip: PART_THROUGH_SERVICE,
  }, async () => {
    const s = await start({ FILEHOST_DRAIN_SECONDS: '0' });
    const big = patternBytes(64 * MiB, 11);
    const putting = await partPutUnderWay(s, big);
    await new Promise((resolve) => setTimeout(resolve, 500));

    s.process.kill('SIGTERM');
    await signalled(s);
    await until(() => refused(s.apiUrl), 5000, 'the API stops listening at once');
    await putting.put.finish(1000);
    const put = await putting.put.answer;
    assert.equal(put.status, 200, put.body);
    assert.deepEqual(await s.exited, { code: 0, signal: null }, s.output());

    const again = await start();
    const completed = await json<FileRecord>(
      await fetch(`${again.apiUrl}/v1/uploads/${putting.signed.id}/complete`, {
        method: 'POST',
        headers: auth(again),
      }),
    );
    assertSameBytes(await (await fetch(`${again.cdnUrl}/${completed.id}`)).arrayBuffer(), big);
    again.process.kill('SIGKILL');
    await again.exited;
  });

  it('FILEHOST_SHUTDOWN_SECONDS bounds the stop: a part PUT that stalls is cut, nothing of it kept, exit 0', {
    skip: PART_THROUGH_SERVICE,
  }, async () => {
    const s = await start({ FILEHOST_DRAIN_SECONDS: '1', FILEHOST_SHUTDOWN_SECONDS: '3' });
    const big = patternBytes(64 * MiB, 13);
    const putting = await partPutUnderWay(s, big);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const signalledAt = Date.now();
    s.process.kill('SIGTERM');
    // The sender never sends its last MiB: the bound, not the request, ends the stop.
    assert.deepEqual(await s.exited, { code: 0, signal: null }, s.output());
    const took = Date.now() - signalledAt;
    assert.ok(took >= 2900, `stopped after ${took} ms, before its bound`);
    assert.ok(took < 15_000, `stopped after ${took} ms`);
    await assert.rejects(putting.put.answer);
    assert.match(s.output(), /the shutdown bound ran out/);

    const again = await start();
    const refusedComplete = await fetch(
      `${again.apiUrl}/v1/uploads/${putting.signed.id}/complete`,
      { method: 'POST', headers: auth(again) },
    );
    assert.equal(refusedComplete.status, 409, await refusedComplete.text());
    again.process.kill('SIGKILL');
    await again.exited;
  });
});
