import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteMetadataStore } from '../../../src/server/db/sqlite/sqlite-store.js';
import { ServiceError } from '../../../src/server/ground/errors.js';
import { newId } from '../../../src/server/ground/secrets.js';
import { TUS_LEASE_MS, TusLease } from '../../../src/server/uploads/tus-lease.js';

/**
 * A PATCH's write lease on a real store, with this instance's clock in the test's hands: the
 * holder stops before its lease could lapse unless renewed, renewals keep it, and once it
 * lapsed another PATCH takes the upload over and the first can record nothing.
 */
describe('tus write lease', () => {
  let dir: string;
  let db: SqliteMetadataStore;
  let clock = 0;
  const ctx = () => ({ db, now: () => clock });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'filehost-tus-lease-'));
    db = new SqliteMetadataStore(join(dir, 'test.db'));
  });
  after(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const conflict = (error: unknown) =>
    error instanceof ServiceError && error.code === 'upload_conflict';

  it('stops its holder a second before it could lapse, unless renewed', async () => {
    const id = newId();
    await db.createTusUpload(id);
    clock = 1_000;
    const lease = await TusLease.take(ctx(), id, 0);
    assert.ok(lease);
    try {
      assert.equal(await TusLease.take(ctx(), id, 0), null, 'one holder at a time');
      clock += TUS_LEASE_MS - 1_001;
      lease.check();
      clock += 1;
      assert.throws(() => lease.check(), conflict);
      // Once stopped it stays stopped, and records nothing.
      await assert.rejects(lease.advance(5, true), conflict);
      assert.equal((await db.getTusUpload(id))?.offset, 0);
    } finally {
      await lease.release();
    }
  });

  it('is kept by its renewals, and taken over once it lapsed', async () => {
    const id = newId();
    await db.createTusUpload(id);
    clock = 10_000;
    const first = await TusLease.take(ctx(), id, 0);
    assert.ok(first);
    try {
      // Renewed every second of real time, each from the clock as it is then.
      clock = 13_000;
      for (let waited = 0; (await db.getTusUpload(id))?.leaseUntil !== 13_000 + TUS_LEASE_MS; ) {
        assert.ok(waited < 30_000, 'the lease was never renewed');
        await new Promise((resolve) => setTimeout(resolve, 100));
        waited += 100;
      }
      // Unrenewed it would have stopped at 14,000.
      clock = 13_000 + TUS_LEASE_MS - 1_001;
      first.check();
      await first.advance(3, false);
      assert.equal((await db.getTusUpload(id))?.offset, 3);
      // Its renewals stop reaching the database (a stalled instance) until long after.
      clock += 10 * TUS_LEASE_MS;
      const second = await TusLease.take(ctx(), id, 3);
      assert.ok(second, 'a lapsed lease is taken over');
      assert.throws(() => first.check(), conflict);
      await assert.rejects(first.advance(9, false), conflict);
      await second.advance(7, true);
      assert.equal((await db.getTusUpload(id))?.offset, 7);
    } finally {
      await first.release();
    }
  });
});
