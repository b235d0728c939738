import { join } from 'node:path';
import pg from 'pg';
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
