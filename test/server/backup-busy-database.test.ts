import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { type BackupProgress, backupDataDir } from '../../src/server/admin/backup.js';
import { SqliteMetadataStore } from '../../src/server/db/sqlite/sqlite-store.js';
import { createProject } from '../../src/server/start/admin.js';
import { readyFileRow } from '../helpers/file-rows.js';
import { insertFilesBulk } from '../helpers/sqlite-rows.js';

/**
 * SQLite's online backup starts over whenever another connection writes between two of
 * its steps; a service that writes all the time would keep a step-by-step copy from ever
 * finishing. Here another connection writes every millisecond or so while a database of
 * several thousand pages is backed up.
 */
describe('admin backup: the database copy finishes while it is written to', () => {
  let dataDir: string;
  let projectId: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-backup-busy-'));
    const store = new SqliteMetadataStore(join(dataDir, 'filehost.db'));
    projectId = (await createProject(store, { name: 'p', plan: 'free', allowedOrigins: [] })).id;
    await store.close();
    // Deleted rows: records that need no bytes, so the copy is the database alone.
    insertFilesBulk(
      join(dataDir, 'filehost.db'),
      Array.from({ length: 40_000 }, (_, index) =>
        readyFileRow({ id: `old${index}`, projectId, status: 'deleted', name: 'x'.repeat(100) }),
      ),
    );
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('copies a database another connection writes to throughout, whole and sound', async () => {
    const writer = new Database(join(dataDir, 'filehost.db'));
    writer.pragma('journal_mode = WAL');
    const insert = writer.prepare(
      `INSERT INTO settings (name, value) VALUES (?, 'v') ON CONFLICT (name) DO UPDATE SET value = excluded.value || 'v'`,
    );
    let writes = 0;
    const writing = setInterval(() => {
      insert.run(`busy${writes++ % 50}`);
    }, 1);
    const seen: Extract<BackupProgress, { step: 'database' }>[] = [];
    try {
      const manifest = await backupDataDir({
        dataDir,
        target: join(dataDir, 'backup'),
        onProgress: (progress) => {
          if (progress.step === 'database') seen.push(progress);
        },
      });
      assert.ok(manifest.schemaVersion > 0);
    } finally {
      clearInterval(writing);
      writer.close();
    }
    assert.ok(writes > 0);
    const total = (seen.at(-1) as { totalPages: number }).totalPages;
    assert.ok(total > 2048, `a database of several steps (${total} pages)`);
    // A step that copied no more than the one before had started over; the rest then went
    // in one step (one snapshot no write can restart), so the copy ended right after.
    const stalled = seen.findIndex(
      (progress, index) => index > 1 && progress.copiedPages <= (seen[index - 1]?.copiedPages ?? 0),
    );
    assert.ok(stalled > 0, `a write made the copy start over (${writes} writes)`);
    assert.deepEqual(
      seen.slice(stalled + 1).map((progress) => progress.copiedPages),
      [total],
      'after starting over once, the copy finished in the next step',
    );
    const copy = new Database(join(dataDir, 'backup', 'filehost.db'), { readonly: true });
    try {
      assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
      assert.equal(copy.prepare('SELECT count(*) FROM files').pluck().get(), 40_000);
    } finally {
      copy.close();
    }
  });
});
