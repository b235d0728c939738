import { join } from 'node:path';
import pg from 'pg';
import { BlobUnavailableError } from '../../src/server/storage/blob-store.js';
import type { TestService } from './service.js';
import { holdWriteLock } from './sqlite-write-lock.js';

/**
 * Holds the test service's file rows busy from another connection, so that changing any of
 * them fails the way a busy database fails it (503 `unavailable` once the store's wait runs
 * out): on the embedded deployment a second process holds SQLite's write lock; at scale a
 * second PostgreSQL session holds every row of `files` locked (`FOR UPDATE`), so an update
 * of one runs into `statement_timeout`. Reads go on in both.
 */
export async function holdFilesBusy(t: TestService): Promise<{ release(): Promise<void> }> {
  const url = t.service.context.config.databaseUrl;
  if (url === undefined) return holdWriteLock(join(t.dataDir, 'filehost.db'));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query('SELECT id FROM files FOR UPDATE');
  return {
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

/**
 * The fault of a sign that fails after its rows are written, with the database busy when it
 * takes them back: the `failAt`-th multipart upload made from now on fails (the storage
 * going away) once another connection holds the file rows busy (`holdFilesBusy`), and the
 * database comes back once it has refused a removal (a take-back's first try). `restore`
 * puts the stores back, ends the hold and answers whether a removal was refused.
 */
export function signFailsWithFilesBusy(
  t: TestService,
  failAt = 1,
): { restore(): Promise<{ refused: boolean }> } {
  const { blobs, db } = t.service.context;
  const createMultipart = blobs.createMultipart;
  const markDeleted = db.markDeleted;
  let busy: Promise<{ release(): Promise<void> }> | null = null;
  let released: Promise<void> | null = null;
  const release = () => busy?.then((lock) => lock.release()) ?? null;
  let calls = 0;
  blobs.createMultipart = function (this: typeof blobs, ...args) {
    if (++calls !== failAt) return createMultipart.apply(this, args);
    busy = holdFilesBusy(t);
    return busy.then(() => {
      throw new BlobUnavailableError('unreachable', 'storage went away');
    });
  };
  // Only watched: the database comes back once it has refused a removal.
  db.markDeleted = function (this: typeof db, ...args) {
    return markDeleted.apply(this, args).catch((error: unknown) => {
      released ??= release();
      throw error;
    });
  };
  return {
    async restore() {
      blobs.createMultipart = createMultipart;
      db.markDeleted = markDeleted;
      const refused = released !== null;
      await (released ?? release());
      return { refused };
    },
  };
}
