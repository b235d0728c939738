import { join } from 'node:path';
import Database from 'better-sqlite3';
import { numberedPlaceholders } from '../../src/server/db/postgres/placeholders.js';
import { testClient } from './postgres.js';

/** What a running service reads its rows from: its SQLite file, or a PostgreSQL database. */
type ServiceDatabase = { dataDir: string; databaseUrl: string | undefined };

/**
 * Moves a file's `deleteAt` to `at` in the database a running service reads (its SQLite
 * file, or the PostgreSQL database of the scale deployment), so that a test sees what
 * happens when that time comes without waiting the minute `deleteAfter` takes at least.
 * Only the time is moved; what the service does then is its own.
 */
export async function moveDeleteAt(
  service: ServiceDatabase,
  id: string,
  at: number,
): Promise<void> {
  const changed = await update(service, 'UPDATE files SET delete_at = ? WHERE id = ?', [at, id]);
  if (changed !== 1) throw new Error(`No file ${id} to move`);
}

/**
 * Moves the start of every file of the service's database `ms` into the past, so that a
 * test sees what a window of time (an address's 24 hours) does once it has passed, without
 * waiting it out. Only the times move; what the service makes of them is its own.
 */
export async function ageFiles(service: ServiceDatabase, ms: number): Promise<void> {
  await update(service, 'UPDATE files SET created_at = created_at - ?', [ms]);
}

/**
 * One statement (`?` placeholders) on a connection of its own to the service's database,
 * beside the service's; the rows it changed.
 */
async function update(
  service: ServiceDatabase,
  sql: string,
  values: readonly (string | number)[],
): Promise<number> {
  if (service.databaseUrl) {
    const client = testClient(service.databaseUrl);
    await client.connect();
    try {
      return (await client.query(numberedPlaceholders(sql), [...values])).rowCount ?? 0;
    } finally {
      await client.end();
    }
  }
  const db = new Database(join(service.dataDir, 'filehost.db'), { timeout: 5000 });
  try {
    return db.prepare(sql).run(...values).changes;
  } finally {
    db.close();
  }
}
