import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startRgw, type TestRgw } from '../../helpers/ceph-rgw.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { scaleEnv } from '../../helpers/scale.js';
import { ALLOWED_ORIGIN, json, startTestService, type TestService } from '../../helpers/service.js';

const postgres = await startPostgres();
const rgw = await startRgw();
const skip = 'skip' in postgres ? postgres.skip : 'skip' in rgw ? rgw.skip : undefined;

interface Readiness {
  status: 'ready' | 'unready';
  failing: string[];
}

/**
 * `/readyz` of the scale deployment when what it stands on fails, on both ports: a hung
 * gateway, a database that refuses connections, one that turned read-only, and one
 * stopped. This file has its own PostgreSQL and gateway: it breaks them.
 */
describe('readiness of the scale deployment when its database or bucket fails', {
  skip,
  timeout: 120_000,
}, () => {
  let t: TestService;
  let admin: pg.Client;
  let database: string;
  const servers = { pg: postgres as TestPostgres, rgw: rgw as TestRgw };

  before(async () => {
    const env = await scaleEnv(servers.pg, servers.rgw, [ALLOWED_ORIGIN]);
    database = new URL(env.FILEHOST_DATABASE_URL).pathname.slice(1);
    t = await startTestService(env);
    admin = new pg.Client(servers.pg.adminUrl);
    await admin.connect();
  });
  after(async () => {
    await admin?.end().catch(() => {});
    await t?.close();
    if (!skip) {
      await servers.rgw.stop();
      await servers.pg.stop();
    }
  });

  async function expectFailing(failing: string[]): Promise<void> {
    for (const base of [t.apiUrl, t.cdnUrl]) {
      const started = Date.now();
      const response = await fetch(`${base}/readyz`);
      const ms = Date.now() - started;
      const expected = failing.length === 0 ? 200 : 503;
      assert.deepEqual(await json<Readiness>(response, expected), {
        status: failing.length === 0 ? 'ready' : 'unready',
        failing,
      });
      // Each probe has 1 s; a loaded machine may add some.
      assert.ok(ms < 5000, `${base} answered after ${ms} ms`);
      assert.equal((await fetch(`${base}/healthz`)).status, 200, 'alive all along');
    }
  }

  /**
   * Ends the service's connections to its database, so its pool must open new ones. Each
   * backend is waited for until it has exited (the timeout argument): without it, the next
   * probe could reach a backend still ending, which answers as its old session would (still
   * read-only after the reset) or fails as it goes, a race of the test, not of the service.
   */
  async function dropConnections(): Promise<void> {
    await admin.query(
      'SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
  }

  it('is ready while both answer', async () => {
    await expectFailing([]);
  });

  it('names the storage while the gateway hangs, and recovers', async () => {
    const thaw = servers.rgw.freeze();
    try {
      await expectFailing(['storage']);
    } finally {
      thaw();
    }
    await expectFailing([]);
  });

  it('names the database while it refuses connections, and recovers', async () => {
    await admin.query(`ALTER DATABASE "${database}" WITH ALLOW_CONNECTIONS false`);
    await dropConnections();
    try {
      await expectFailing(['database']);
    } finally {
      await admin.query(`ALTER DATABASE "${database}" WITH ALLOW_CONNECTIONS true`);
    }
    await expectFailing([]);
  });

  it('names the database while it is read-only, though it answers reads', async () => {
    await admin.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
    await dropConnections();
    try {
      await expectFailing(['database']);
      assert.equal((await t.api('/v1/files')).status, 200, 'reads still answer');
    } finally {
      await admin.query(`ALTER DATABASE "${database}" RESET default_transaction_read_only`);
      await dropConnections();
    }
    await expectFailing([]);
  });

  it('names the database once its server is stopped', async () => {
    await admin.end();
    await servers.pg.stop();
    await expectFailing(['database']);
  });
});
