import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SqliteMetadataStore } from '../../../src/server/db/sqlite-store.js';
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
  it('pages through the partial index from the cursor on, never scanning past it', () => {
    const store = new SqliteMetadataStore(':memory:');
    const plan = store.explainListing();
    store.close();
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
