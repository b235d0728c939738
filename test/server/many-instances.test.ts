import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type {
  FileListResponse,
  FileRecord,
  ImportResponse,
  SignResponse,
} from '../../src/api/types.js';
import {
  type Instances,
  missingScaleServers,
  type Ports,
  startInstances,
} from '../helpers/instances.js';
import type { TestNginx } from '../helpers/nginx.js';
import { publicUrlOf } from '../helpers/public-url.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  type ChildService,
  json,
  patternBytes,
} from '../helpers/service.js';

const MiB = 1024 * 1024;

const skip = (await missingScaleServers()) ?? undefined;

/**
 * The scale deployment for real: instances as processes of their own, sharing one
 * PostgreSQL database and one bucket on a Ceph RADOS Gateway, behind nginx (round robin).
 * Whatever one instance starts, another finishes; killing one loses nothing acknowledged.
 */
describe('many instances behind a load balancer (PostgreSQL + S3)', { skip }, () => {
  let scale: Instances;
  let env: Record<string, string>;
  let stored: () => Promise<string[]>;
  let nginx: TestNginx;
  let instances: ChildService[];
  let ports: Ports[];

  before(async () => {
    scale = await startInstances({
      FILEHOST_PART_SIZE: String(5 * MiB),
      FILEHOST_RATE_LIMIT: '6',
      FILEHOST_IDLE_TIMEOUT: '2',
      FILEHOST_SWEEP_INTERVAL: '1',
      FILEHOST_PENDING_GRACE: '0',
      // The imports' remote server is on loopback here.
      FILEHOST_IMPORT_ALLOW_PRIVATE: 'true',
    });
    ({ env, stored, nginx, instances, ports } = scale);
  });

  after(() => scale?.stop());

  const start = (index: number) => scale.start(index);
  const direct = (index: number) => scale.direct(index);
  const directCdn = (index: number) => scale.directCdn(index);
  const secret = () => ({ Authorization: `Bearer ${env.FILEHOST_SECRET_KEY}` });

  async function sign(apiUrl: string, name: string, size: number): Promise<SignResponse> {
    return json<SignResponse>(
      await fetch(`${apiUrl}/v1/uploads/sign`, {
        method: 'POST',
        headers: { ...secret(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, size, type: 'application/octet-stream' }),
      }),
      201,
    );
  }

  async function putPart(part: SignResponse['parts'][number], bytes: Uint8Array<ArrayBuffer>) {
    const response = await fetch(part.url, { method: 'PUT', headers: part.headers, body: bytes });
    await response.arrayBuffer();
    assert.equal(response.status, 200);
    return response.headers.get('etag') as string;
  }

  async function complete(apiUrl: string, signed: SignResponse, etags: string[]) {
    return json<FileRecord>(
      await fetch(`${apiUrl}/v1/uploads/${signed.id}/complete`, {
        method: 'POST',
        headers: { ...secret(), 'Content-Type': 'application/json' },
        body: JSON.stringify({
          parts: etags.map((etag, index) => ({ partNumber: index + 1, etag })),
        }),
      }),
    );
  }

  it('signs on one instance, takes the parts in the bucket, completes on another, serves from any', async () => {
    const bytes = patternBytes(5 * MiB + 1234, 3);
    const signed = await sign(direct(0), 'crossing.bin', bytes.length);
    assert.equal(signed.parts.length, 2);
    for (const part of signed.parts) {
      assert.ok(!part.url.startsWith(direct(0)) && !part.url.startsWith(nginx.apiUrl));
    }
    const etags = [
      await putPart(signed.parts[0] as never, bytes.subarray(0, 5 * MiB)),
      await putPart(signed.parts[1] as never, bytes.subarray(5 * MiB)),
    ];
    // The upload state, read on the other instance, lists what the bucket holds.
    const state = await json<{ parts: { etag: string | null }[] }>(
      await fetch(`${direct(1)}/v1/uploads/${signed.id}`, { headers: secret() }),
    );
    assert.deepEqual(
      state.parts.map((part) => part.etag),
      etags,
    );
    const record = await complete(direct(1), signed, etags);
    assert.equal(record.status, 'ready');
    assert.ok(publicUrlOf(record).startsWith(`${nginx.cdnUrl}/`));
    for (const cdn of [directCdn(0), directCdn(1), nginx.cdnUrl]) {
      const served = await fetch(`${cdn}/${signed.id}`);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assertSameBytes(await served.arrayBuffer(), bytes);
      const range = await fetch(`${cdn}/${signed.id}`, { headers: { Range: 'bytes=-10' } });
      assert.equal(range.status, 206);
      assert.equal(
        range.headers.get('content-range'),
        `bytes ${bytes.length - 10}-${bytes.length - 1}/${bytes.length}`,
      );
      assertSameBytes(await range.arrayBuffer(), bytes.subarray(bytes.length - 10));
    }
  });

  it("passes an early refusal through nginx as the service's answer, never a 502", async () => {
    // nginx keeps HTTP/1.1 connections to the instances (the README's configuration); the
    // client's own connection closes after the answer. A refused body still streaming
    // must not turn the instance's 403 or 413 into nginx's 502.
    const url = new URL(nginx.apiUrl);
    const body = Buffer.alloc(5 * MiB, 7);
    const refusals = [
      {
        headers: [
          `Authorization: Bearer ${instances[0]?.publishableKey}`,
          'Origin: http://evil.test',
          `Content-Length: ${body.length}`,
        ],
        status: 403,
        code: 'origin_not_allowed',
      },
      {
        headers: [`Authorization: Bearer ${env.FILEHOST_SECRET_KEY}`, 'Content-Length: 104857601'],
        status: 413,
        code: 'too_large',
      },
    ];
    for (const version of ['1.1', '1.0'] as const) {
      for (const refusal of refusals) {
        for (let i = 0; i < 5; i++) {
          const answer = await rawExchange(
            url,
            {
              method: 'POST',
              path: '/v1/upload',
              version,
              headers: [
                'Content-Type: application/octet-stream',
                ...refusal.headers,
                ...(version === '1.1' ? ['Connection: close'] : []),
              ],
            },
            body,
          );
          assert.equal(answer.status, refusal.status, `HTTP/${version}: ${answer.body}`);
          assert.equal(JSON.parse(answer.body).error.code, refusal.code);
        }
      }
    }
  });

  it("never serves a file from one instance's memory after another deleted it", async () => {
    const bytes = patternBytes(1024, 9);
    const uploaded = await json<FileRecord>(
      await fetch(`${direct(0)}/v1/upload`, { method: 'POST', headers: secret(), body: bytes }),
      201,
    );
    // Read on both instances: each now holds the small file in memory.
    for (const cdn of [directCdn(0), directCdn(1)]) {
      assertSameBytes(await (await fetch(`${cdn}/${uploaded.id}`)).arrayBuffer(), bytes);
    }
    const deleted = await fetch(`${direct(0)}/v1/files/${uploaded.id}`, {
      method: 'DELETE',
      headers: secret(),
    });
    assert.equal(deleted.status, 204);
    // Instance 1 heard nothing of the delete; it still must not serve the file.
    for (const cdn of [directCdn(1), directCdn(0)]) {
      const response = await fetch(`${cdn}/${uploaded.id}`);
      await response.arrayBuffer();
      assert.equal(response.status, 404, cdn);
    }
  });

  it('keeps one rate limit across instances, for the client nginx saw (not what it claims)', async () => {
    // A fresh bucket per origin+key+IP: 6 per minute. Round robin spreads the requests
    // over both instances; a forged X-Forwarded-For does not buy a fresh bucket.
    const statuses: number[] = [];
    for (let index = 0; index < 10; index++) {
      const response = await fetch(`${nginx.apiUrl}/v1/files?limit=1`, {
        headers: {
          Authorization: `Bearer ${env.FILEHOST_PUBLISHABLE_KEY}`,
          Origin: ALLOWED_ORIGIN,
          'X-Forwarded-For': `203.0.113.${index}`,
        },
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    assert.deepEqual(
      statuses,
      [200, 200, 200, 200, 200, 200, 429, 429, 429, 429],
      `statuses: ${statuses.join(' ')}`,
    );
  });

  it("never sweeps away another instance's upload while its bytes keep arriving", async () => {
    // Instance 1 receives a slow one-request upload for longer than its lease (three idle
    // timeouts, 6 s here) while both instances sweep every second: the lease is renewed.
    const total = 8 * 64 * 1024;
    const socket = connect(ports[1]?.api ?? 0, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.write(
      `POST /v1/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${env.FILEHOST_SECRET_KEY}\r\nContent-Type: application/octet-stream\r\nX-Filename: slow.bin\r\nContent-Length: ${total}\r\nConnection: close\r\n\r\n`,
    );
    for (let sent = 0; sent < total; sent += 64 * 1024) {
      socket.write(Buffer.alloc(64 * 1024, 7));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    await waitFor(async () => /\r\n\r\n\{.*\}$/s.test(answer), 'the answer');
    socket.destroy();
    assert.match(answer, /^HTTP\/1\.1 201/);
    const id = /"id":"([^"]+)"/.exec(answer)?.[1];
    const served = await fetch(`${nginx.cdnUrl}/${id}`);
    assert.equal((await served.arrayBuffer()).byteLength, total);
  });

  it('loses nothing acknowledged when an instance is killed mid-upload; the others finish and clean up', async () => {
    const bytes = patternBytes(5 * MiB + 10, 9);
    const signed = await sign(direct(1), 'survivor.bin', bytes.length);
    const first = await putPart(signed.parts[0] as never, bytes.subarray(0, 5 * MiB));
    // A one-request upload into instance 1, its body held open half-sent.
    const socket = connect(ports[1]?.api ?? 0, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /v1/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${env.FILEHOST_SECRET_KEY}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${40 * MiB}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(20 * MiB, 1));
    socket.on('error', () => undefined);
    // Its bytes are streaming into a multipart upload of the instance's own (not the
    // signed upload above, which is open in the bucket too).
    await waitFor(
      async () =>
        (await stored()).some(
          (path) => path.startsWith('uploads/') && path !== `uploads/${signed.id}`,
        ),
      'the one-request upload open in the bucket',
    );

    const victim = instances[1] as ChildService;
    victim.process.kill('SIGKILL');
    assert.equal((await victim.exited).signal, 'SIGKILL');
    socket.destroy();

    // The survivor finishes the multi-step upload the dead one started.
    const second = await putPart(signed.parts[1] as never, bytes.subarray(5 * MiB));
    const record = await complete(direct(0), signed, [first, second]);
    assert.equal(record.status, 'ready');
    const served = await fetch(`${directCdn(0)}/${signed.id}`);
    assertSameBytes(await served.arrayBuffer(), bytes);

    // Through the balancer, every request still gets an answer (nginx skips the dead one).
    for (let index = 0; index < 4; index++) {
      const response = await fetch(`${nginx.apiUrl}/v1/files?limit=100`, { headers: secret() });
      const page = await json<FileListResponse>(response);
      assert.ok(page.files.some((file) => file.id === signed.id));
      // The dead instance's one-request upload never became visible.
      assert.ok(page.files.every((file) => file.status === 'ready'));
    }

    // Its lease runs out (3 idle timeouts) and the survivor's sweep removes what it left:
    // the row, and the multipart upload it had opened in the bucket.
    await waitFor(
      async () => (await stored()).every((path) => !path.startsWith('uploads/')),
      'the dead upload aborted in the bucket',
      20_000,
    );
    // Restarted at once on the same settings, the instance serves again.
    instances[1] = await start(1);
    const again = await fetch(`${directCdn(1)}/${signed.id}`);
    assertSameBytes(await again.arrayBuffer(), bytes);
  });

  it('runs an import once, on the instance that took it; killed mid-import, another fails it cleanly', async () => {
    const held = new Set<import('node:http').ServerResponse>();
    const remote = createServer((request, response) => {
      response.writeHead(200, { 'content-length': String(8 * MiB) });
      response.write(Buffer.alloc(2 * MiB, 4));
      if (request.url === '/whole') {
        response.end(Buffer.alloc(6 * MiB, 4));
      } else held.add(response);
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    const remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    let requests = 0;
    remote.on('request', () => requests++);
    try {
      const start = async (index: number, path: string) =>
        (
          await json<ImportResponse>(
            await fetch(`${direct(index)}/v1/uploads/import`, {
              method: 'POST',
              headers: { ...secret(), 'Content-Type': 'application/json' },
              body: JSON.stringify({ url: `${remoteUrl}${path}` }),
            }),
            202,
          )
        ).file;
      const record = async (index: number, id: string) =>
        json<FileRecord>(await fetch(`${direct(index)}/v1/files/${id}`, { headers: secret() }));

      // Taken by instance 1, followed through instance 0, ready once, fetched once.
      const whole = await start(1, '/whole');
      await waitFor(async () => (await record(0, whole.id)).status === 'ready', 'the import ready');
      assert.equal(requests, 1);
      assert.equal((await record(1, whole.id)).size, 8 * MiB);

      // Held half-way on instance 1, which is killed: instance 0's sweep fails it once the
      // lease has run out, and nothing of it stays in the bucket.
      const before = (await stored()).filter((path) => !path.startsWith('uploads/'));
      const halted = await start(1, '/held');
      await waitFor(
        async () => ((await record(0, halted.id)).importProgress?.receivedBytes ?? 0) > 0,
        'progress seen from the other instance',
      );
      const victim = instances[1] as ChildService;
      victim.process.kill('SIGKILL');
      assert.equal((await victim.exited).signal, 'SIGKILL');
      await waitFor(
        async () => (await record(0, halted.id)).status === 'failed',
        'the dead import failed by the survivor',
        30_000,
      );
      const failed = await record(0, halted.id);
      assert.equal(failed.importError?.code, 'import_failed');
      assert.equal((await fetch(`${directCdn(0)}/${halted.id}`)).status, 404);
      await waitFor(
        async () =>
          JSON.stringify((await stored()).filter((path) => !path.startsWith('uploads/'))) ===
          JSON.stringify(before),
        'nothing of the dead import in the bucket',
      );
      // Never fetched again.
      assert.equal(requests, 2);
      instances[1] = await start1();
    } finally {
      for (const response of held) response.destroy();
      remote.close();
    }
  });

  const start1 = () => start(1);
});

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
