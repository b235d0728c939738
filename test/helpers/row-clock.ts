import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

/**
 * Moves a file's `deleteAt` to `at` in the database a running service reads (its SQLite
 * file, or the PostgreSQL database of the scale deployment), so that a test sees what
 * happens when that time comes without waiting the minute `deleteAfter` takes at least.
 * Only the time is moved; what the service does then is its own.
 */
export async function moveDeleteAt(
  service: { dataDir: string; databaseUrl: string | undefined },
  id: string,
  at: number,
): Promise<void> {
  if (service.databaseUrl) {
    const client = new pg.Client({ connectionString: service.databaseUrl });
    await client.connect();
    try {
      const result = await client.query('UPDATE files SET delete_at = $1 WHERE id = $2', [at, id]);
      if (result.rowCount !== 1) throw new Error(`No file ${id} to move`);
    } finally {
      await client.end();
    }
    return;
  }
  const db = new Database(join(service.dataDir, 'filehost.db'), { timeout: 5000 });
  try {
    const changed = db.prepare('UPDATE files SET delete_at = ? WHERE id = ?').run(at, id).changes;
    if (changed !== 1) throw new Error(`No file ${id} to move`);
  } finally {
    db.close();
  }
}

/**
 * Moves the start of every file of the service's database `ms` into the past, so that a
 * test sees what a window of time (an address's 24 hours) does once it has passed, without
 * waiting it out. Only the times move; what the service makes of them is its own.
 */
export async function ageFiles(
  service: { dataDir: string; databaseUrl: string | undefined },
  ms: number,
): Promise<void> {
  if (service.databaseUrl) {
    const client = new pg.Client({ connectionString: service.databaseUrl });
    await client.connect();
    try {
      await client.query('UPDATE files SET created_at = created_at - $1', [ms]);
    } finally {
      await client.end();
    }
    return;
  }
  const db = new Database(join(service.dataDir, 'filehost.db'), { timeout: 5000 });
  try {
    db.prepare('UPDATE files SET created_at = created_at - ?').run(ms);
  } finally {
    db.close();
  }
}
