import Database from 'better-sqlite3';
import type { FileRow } from '../../src/server/db/metadata-store.js';
import { fileValues } from '../../src/server/db/sql/records.js';
import { fileInsert } from '../../src/server/db/sql/statements.js';

/**
 * Many file rows at once, for benchmarks and tests that need a big project fast: one
 * transaction on a connection of its own to the embedded database (a running service's
 * included: SQLite in WAL mode lets the service read on while this writes).
 */
export function insertFilesBulk(databasePath: string, files: Iterable<FileRow>): void {
  const db = new Database(databasePath, { timeout: 5000 });
  try {
    const insert = db.prepare(fileInsert(1));
    db.transaction(() => {
      for (const file of files) insert.run(...fileValues(file));
    })();
  } finally {
    db.close();
  }
}
