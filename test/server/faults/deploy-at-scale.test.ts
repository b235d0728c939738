import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FileRecord, SignResponse, UploadResponse } from '../../../src/api/types.js';
import { type Instances, missingScaleServers, startInstances } from '../../helpers/instances.js';
import { assertSameBytes, json, patternBytes } from '../../helpers/service.js';

const MiB = 1024 * 1024;

const skip = (await missingScaleServers()) ?? undefined;

/** An upload a client made, and how it went. */
interface Attempt {
  kind: 'one request' | 'sign, part, complete';
  id: string | null;
  bytes: Uint8Array<ArrayBuffer>;
  failure: string | null;
}

/**
 * A deploy at scale for real: two instances (processes of their own on one PostgreSQL and
 * one bucket) behind the tests' nginx, the configuration docs/running-at-scale.md shows.
 * Clients upload through nginx all along, both ways (one request; sign, a part straight to
 * the bucket, complete), while one instance is stopped by SIGTERM and a new one started in
 * its place: no client sees a failure, and every file is served byte for byte.
 */
describe('a deploy of one instance behind nginx loses no upload', { skip }, () => {
  let scale: Instances;
  const secret = () => ({ Authorization: `Bearer ${scale.env.FILEHOST_SECRET_KEY}` });

  before(async () => {
    scale = await startInstances({
      FILEHOST_PART_SIZE: String(5 * MiB),
      // Long enough for nginx to be sent some requests while unready; short for the test.
      FILEHOST_DRAIN_SECONDS: '2',
    });
  });
  after(() => scale?.stop());

  async function oneRequest(bytes: Uint8Array<ArrayBuffer>, index: number): Promise<string> {
    const stored = await json<UploadResponse>(
      await fetch(`${scale.nginx.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: { ...secret(), 'X-Filename': `one-${index}.bin` },
        body: bytes,
      }),
      201,
    );
    return stored.id;
  }

  async function signed(bytes: Uint8Array<ArrayBuffer>, index: number): Promise<string> {
    const upload = await json<SignResponse>(
      await fetch(`${scale.nginx.apiUrl}/v1/uploads/sign`, {
        method: 'POST',
        headers: { ...secret(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `signed-${index}.bin`, size: bytes.length }),
      }),
      201,
    );
    const part = upload.parts[0] as SignResponse['parts'][number];
    const put = await fetch(part.url, { method: 'PUT', headers: part.headers, body: bytes });
    assert.equal(put.status, 200, await put.text());
    const record = await json<FileRecord>(
      await fetch(`${scale.nginx.apiUrl}/v1/uploads/${upload.id}/complete`, {
        method: 'POST',
        headers: secret(),
      }),
    );
    assert.equal(record.status, 'ready');
    return upload.id;
  }

  /** Uploads one after another until `stop`, alternating the two ways. */
  async function client(seed: number, attempts: Attempt[], stopped: () => boolean): Promise<void> {
    for (let index = 0; !stopped(); index++) {
      const bytes = patternBytes(64 * 1024 + index, seed * 1000 + index);
      const kind = index % 2 === 0 ? 'one request' : 'sign, part, complete';
      const attempt: Attempt = { kind, id: null, bytes, failure: null };
      attempts.push(attempt);
      try {
        attempt.id =
          kind === 'one request' ? await oneRequest(bytes, index) : await signed(bytes, index);
      } catch (error) {
        attempt.failure = String(error);
      }
    }
  }

  it('SIGTERM one instance, start a new one in its place: every upload of the clients succeeds', async () => {
    const attempts: Attempt[] = [];
    let stop = false;
    const clients = [1, 2, 3].map((seed) => client(seed, attempts, () => stop));
    const done = () => attempts.filter((attempt) => attempt.id !== null).length;
    const atLeast = async (count: number) => {
      const deadline = Date.now() + 60_000;
      while (done() < count) {
        assert.ok(Date.now() < deadline, `only ${done()} uploads in a minute`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    await atLeast(10);
    const old = scale.instances[0];
    assert.ok(old);
    old.process.kill('SIGTERM');
    const beforeExit = done();
    assert.deepEqual(await old.exited, { code: 0, signal: null }, old.output());
    assert.match(old.output(), /filehost stopped/);
    assert.doesNotMatch(old.output(), /is cut/);
    // The clients went on through the whole stop (the drain, then what was under way).
    assert.ok(done() > beforeExit, 'uploads went on while the old instance stopped');

    const replacement = await scale.start(0);
    scale.instances[0] = replacement;
    const afterStart = done();
    await atLeast(afterStart + 20);
    stop = true;
    await Promise.all(clients);

    const failures = attempts.filter((attempt) => attempt.failure !== null);
    assert.deepEqual(
      failures.map((attempt) => `${attempt.kind}: ${attempt.failure}`),
      [],
      'a client saw a failure',
    );
    // The new instance serves: asked directly, it is ready.
    assert.equal((await fetch(`${scale.direct(0)}/readyz`)).status, 200);
    for (const attempt of attempts) {
      const served = await fetch(`${scale.nginx.cdnUrl}/${attempt.id}`);
      assert.equal(served.status, 200, `${attempt.kind} ${attempt.id}`);
      assertSameBytes(await served.arrayBuffer(), attempt.bytes);
    }
  });
});
