import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { FileRow } from '../../../src/server/db/metadata-store.js';
import {
  ADDRESS_USAGE,
  DELETED_UNPURGED,
  EXPIRED_PENDING,
  LIST_AFTER_POSITION,
  RECEIVING,
} from '../../../src/server/db/sql/statements.js';
import { SQLITE_MIGRATIONS } from '../../../src/server/db/sqlite/migrations.js';
import { SqliteMetadataStore } from '../../../src/server/db/sqlite/sqlite-store.js';
import { newId } from '../../../src/server/ground/secrets.js';
import { projectRow } from '../../helpers/file-rows.js';
import { metadataStoreConformance } from './metadata-store.conformance.js';

async function tempDb() {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-db-'));
  return { path: join(dir, 'test.db'), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

metadataStoreConformance('SQLite', async () => {
  const { path, cleanup } = await tempDb();
  return {
    store: new SqliteMetadataStore(path),
    another: async () => new SqliteMetadataStore(path),
    cleanup,
  };
});

describe('SqliteMetadataStore specifics', () => {
  it('pages through the partial index from the cursor on, never scanning past it', async () => {
    const { path, cleanup } = await tempDb();
    await new SqliteMetadataStore(path).close();
    const db = new Database(path, { readonly: true });
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN ${LIST_AFTER_POSITION}`).all('p', 1, 'x', 10) as {
        detail: string;
      }[]
    ).map((row) => row.detail);
    db.close();
    await cleanup();
    assert.equal(plan.length, 1, plan.join('\n'));
    assert.match(
      plan[0] as string,
      /USING INDEX files_listing \(project_id=\? AND \(created_at,id\)<\(\?,\?\)\)/,
    );
  });

  it('walks an index in order for each list the sweeper reads, with no sort of its own', async () => {
    const { path, cleanup } = await tempDb();
    await new SqliteMetadataStore(path).close();
    const db = new Database(path, { readonly: true });
    const plan = (sql: string, values: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[])
        .map((row) => row.detail)
        .join('\n');
    const plans = {
      unpurged: plan(DELETED_UNPURGED, [10]),
      expired: plan(EXPIRED_PENDING, [1, 10]),
      receiving: plan(RECEIVING, [1, 1, 10]),
    };
    db.close();
    await cleanup();
    assert.match(plans.unpurged, /^SCAN files USING INDEX files_unpurged$/);
    assert.match(
      plans.expired,
      /^SEARCH files USING INDEX files_pending_expiry \(expires_at<\?\)$/,
    );
    assert.match(plans.receiving, /^SCAN files USING INDEX files_receiving$/);
  });

  it("sums one address's anonymous files through its index, never the project's other rows", async () => {
    const { path, cleanup } = await tempDb();
    await new SqliteMetadataStore(path).close();
    const db = new Database(path, { readonly: true });
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN ${ADDRESS_USAGE}`).all(0, 'p', 'a', 0, 0) as {
        detail: string;
      }[]
    ).map((row) => row.detail);
    db.close();
    await cleanup();
    assert.deepEqual(plan, [
      'SEARCH files USING INDEX files_anonymous (project_id=? AND anonymous_address=?)',
    ]);
  });

  it("keeps pending anonymous rows anonymous across the migration; ready ones made before count as the owner's", async () => {
    const { path, cleanup } = await tempDb();
    try {
      // The database as the version before left it: a ready file whose address was
      // cleared when it became ready, and an anonymous upload still pending.
      const before = new Database(path);
      const last = SQLITE_MIGRATIONS.findIndex((sql) => sql.includes('ADD COLUMN anonymous_share'));
      for (const [version, sql] of SQLITE_MIGRATIONS.slice(0, last).entries()) {
        before.exec(sql);
        before.pragma(`user_version = ${version + 1}`);
      }
      before.exec(`INSERT INTO projects (id, name, plan, created_at) VALUES ('prj_m', 'M', 'free', 1);
        INSERT INTO files (id, project_id, name, mime, size, created_at, status, expires_at, anonymous_address)
        VALUES ('ready', 'prj_m', 'a', 'text/plain', 100, 1, 'ready', NULL, NULL),
               ('pending', 'prj_m', 'b', 'text/plain', 30, 1, 'pending', 9000000000000, '192.0.2.1');`);
      before.close();
      const store = new SqliteMetadataStore(path);
      const usage = await store.usage('prj_m', 2);
      assert.deepEqual(
        [usage.storedBytes, usage.pendingBytes, usage.anonymousBytes, usage.anonymousUploads],
        [100, 30, 30, 1],
      );
      assert.equal((await store.getProject('prj_m'))?.anonymousShare, null);
      await store.close();
    } finally {
      await cleanup();
    }
  });

  it('migrates once and keeps data when opened again', async () => {
    const { path, cleanup } = await tempDb();
    try {
      const first = new SqliteMetadataStore(path);
      await first.createProject(projectRow({ id: 'prj_1' }));
      await first.close();
      const second = new SqliteMetadataStore(path);
      assert.equal((await second.getProject('prj_1'))?.name, 'P');
      await second.close();
    } finally {
      await cleanup();
    }
  });

  it('commits writes that arrive together as one group: one that fails fails alone, the rest are on disk when answered', async () => {
    const { path, cleanup } = await tempDb();
    try {
      const store = new SqliteMetadataStore(path);
      await store.createProject(projectRow({ id: 'prj_g', name: 'G' }));
      const row = (id: string): FileRow => ({
        id,
        projectId: 'prj_g',
        name: 'a.bin',
        mime: 'application/octet-stream',
        size: 3,
        createdAt: 1_700_000_000_000,
        status: 'pending',
        metadata: {},
        partSize: 5 * 1024 * 1024,
        storageUploadId: null,
        checksum: null,
        expiresAt: 1_800_000_000_000,
        deletedAt: null,
        uploadTokenHash: null,
        completedParts: null,
        visibility: 'public',
        deleteAt: null,
        tokenId: null,
        anonymousAddress: null,
        importState: null,
      });
      const ids = Array.from({ length: 40 }, () => newId());
      const walBefore = (await stat(`${path}-wal`)).size;
      // All in one turn of the event loop, one of them a duplicate id (a constraint fails).
      const settled = await Promise.allSettled([
        ...ids.map((id) => store.insertFile(row(id))),
        store.insertFile(row(ids[7] as string)),
        ...ids.slice(0, 10).map((id) => store.setStorageUploadId(id, `up-${id}`)),
      ]);
      assert.deepEqual(
        settled.map((outcome) => outcome.status),
        [...ids.map(() => 'fulfilled'), 'rejected', ...ids.slice(0, 10).map(() => 'fulfilled')],
      );
      assert.match(String((settled[40] as PromiseRejectedResult).reason), /UNIQUE/);
      // One commit: the WAL grew by the few pages the group touched once (4 KiB each), not
      // by those pages again for each of the 51 writes (a commit apiece wrote 173 frames).
      const walFrames = ((await stat(`${path}-wal`)).size - walBefore) / (4096 + 24);
      assert.ok(walFrames < 20, `${walFrames} WAL frames: not one group`);
      // Answered means committed: another connection (as after a crash) sees every row.
      const other = new Database(path, { readonly: true });
      const rows = other
        .prepare(`SELECT id, storage_upload_id AS up FROM files WHERE project_id = 'prj_g'`)
        .all() as { id: string; up: string | null }[];
      other.close();
      assert.equal(rows.length, 40);
      for (const { id, up } of rows) {
        assert.equal(up, ids.indexOf(id) < 10 ? `up-${id}` : null);
      }
      await store.close();
    } finally {
      await cleanup();
    }
  });
});
