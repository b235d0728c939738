// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LOCAL_ONLY, SCALE } from '../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  json,
  OTHER_ORIGIN,
  startTestService,
  type TestService,
} from '../../helpers/service.js';
import { holdWriteLock } from '../../helpers/sqlite-write-lock.js';

interface Readiness {
  status: 'ready' | 'unready' | 'draining';
  failing: string[];
}

/**
 * `/healthz` and `/readyz` on both ports (decisions.md, "Operating the service"). Faults of
 * the scale deployment's own stores are caused in faults/scale-readiness.test.ts, which
 * has a PostgreSQL and a gateway of its own to break.
 */
describe('health and readiness', { timeout: 60_000 }, () => {
  let t: TestService;
  before(async () => {
    // A limit of 2 a minute: the third keyed request of a minute is refused.
    t = await startTestService({ FILEHOST_RATE_LIMIT: '2' });
  });
  after(() => t.close());

  const both = () => [t.apiUrl, t.cdnUrl];

  async function readiness(base: string, status: number): Promise<Readiness> {
    const response = await fetch(`${base}/readyz`);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    return json<Readiness>(response, status);
  }

  it('answers /healthz 200 on both ports, without a key', async () => {
    for (const base of both()) {
      const response = await fetch(`${base}/healthz`);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.deepEqual(await json(response, 200), { status: 'ok' });
    }
  });

  it('answers /readyz 200 on both ports while both stores answer', async () => {
    for (const base of both()) {
      assert.deepEqual(await readiness(base, 200), { status: 'ready', failing: [] });
    }
  });

  it('is not counted by rate limits, which still count keyed requests', async () => {
    for (let round = 0; round < 5; round++) {
      for (const base of both()) {
        assert.equal((await fetch(`${base}/readyz`)).status, 200);
        assert.equal((await fetch(`${base}/healthz`)).status, 200);
      }
    }
    const statuses: number[] = [];
    for (let call = 0; call < 3; call++) {
      const listed = await t.api('/v1/files', { key: t.publishableKey, origin: ALLOWED_ORIGIN });
      statuses.push(listed.status);
    }
    assert.equal(statuses.at(-1), 429, `keyed calls answered ${statuses.join(', ')}`);
    assert.equal((await fetch(`${t.apiUrl}/readyz`)).status, 200, 'after the limit too');
  });

  it('answers a page on any origin as the API answers pages: no credentials, no surprise', async () => {
    const response = await fetch(`${t.apiUrl}/healthz`, { headers: { Origin: OTHER_ORIGIN } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-credentials'), null);
    const cdn = await fetch(`${t.cdnUrl}/readyz`, { headers: { Origin: OTHER_ORIGIN } });
    assert.equal(cdn.status, 200);
    assert.equal(cdn.headers.get('access-control-allow-credentials'), null);
  });

  it('names the database while another process holds its write lock, and recovers', {
    skip: SCALE ? 'SQLite only' : false,
  }, async () => {
    const lock = await holdWriteLock(join(t.dataDir, 'filehost.db'));
    try {
      for (const base of both()) {
        const started = Date.now();
        assert.deepEqual(await readiness(base, 503), {
          status: 'unready',
          failing: ['database'],
        });
        // Each probe has 1 s; under a loaded machine the answer may take a little longer.
        const ms = Date.now() - started;
        assert.ok(ms < 5000, `answered after ${ms} ms`);
        // Reads still go through WAL: only a write-capable probe sees the lock.
        assert.equal((await fetch(`${base}/healthz`)).status, 200, 'alive all along');
      }
    } finally {
      await lock.release();
    }
    for (const base of both()) assert.equal((await readiness(base, 200)).status, 'ready');
  });

  it('names the storage when its directory is gone, and recovers', {
    skip: LOCAL_ONLY,
  }, async () => {
    const blobs = join(t.dataDir, 'storage', 'blobs');
    await rename(blobs, `${blobs}.away`);
    try {
      for (const base of both()) {
        assert.deepEqual(await readiness(base, 503), { status: 'unready', failing: ['storage'] });
      }
    } finally {
      await rename(`${blobs}.away`, blobs);
    }
    for (const base of both()) assert.equal((await readiness(base, 200)).status, 'ready');
  });
});

/** `/readyz` through a stop (start/draining.ts; the stop of a real process: faults/draining.test.ts). */
describe('readiness while the service drains', { timeout: 60_000 }, () => {
  it('answers /readyz 503 draining on both ports at once, serves through the drain, then stops listening', async () => {
    const t = await startTestService();
    try {
      const began = Date.now();
      const stopping = t.service.drainThenClose({ drainMs: 5000, shutdownMs: 30_000 });
      for (const base of [t.apiUrl, t.cdnUrl]) {
        const response = await fetch(`${base}/readyz`);
        assert.equal(response.headers.get('connection'), 'close');
        assert.deepEqual(await json(response, 503), { status: 'draining', failing: [] });
        assert.deepEqual(await json(await fetch(`${base}/healthz`), 200), { status: 'ok' });
      }
      assert.deepEqual(await stopping, { cutRequests: 0, cutBackground: false });
      assert.ok(Date.now() - began >= 4900, 'served for the whole drain');
      for (const base of [t.apiUrl, t.cdnUrl]) await assert.rejects(fetch(`${base}/healthz`));
    } finally {
      await t.close();
    }
  });
});
