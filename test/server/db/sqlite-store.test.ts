import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { LIST_AFTER_CURSOR_SQL, SqliteMetadataStore } from '../../../src/server/db/sqlite-store.js';
import { metadataStoreConformance } from './metadata-store.conformance.js';

async function tempDb() {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-db-'));
  return { path: join(dir, 'test.db'), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

metadataStoreConformance('SQLite', async () => {
  const { path, cleanup } = await tempDb();
  return { store: new SqliteMetadataStore(path), cleanup };
});

describe('SqliteMetadataStore specifics', () => {
  it('pages through the partial index from the cursor on, never scanning past it', async () => {
    const { path, cleanup } = await tempDb();
    await new SqliteMetadataStore(path).close();
    const db = new Database(path, { readonly: true });
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN ${LIST_AFTER_CURSOR_SQL}`).all('p', 1, 'x', 10) as {
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

  it('migrates once and keeps data when opened again', async () => {
    const { path, cleanup } = await tempDb();
    try {
      const first = new SqliteMetadataStore(path);
      await first.createProject({
        id: 'prj_1',
        name: 'P',
        plan: 'free',
        allowedOrigins: [],
        createdAt: 1,
      });
      await first.close();
      const second = new SqliteMetadataStore(path);
      assert.equal((await second.getProject('prj_1'))?.name, 'P');
      await second.close();
    } finally {
      await cleanup();
    }
  });
});
