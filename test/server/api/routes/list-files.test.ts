// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FileListResponse, FileRecord } from '../../../../src/api/types.js';
import type { FileRow } from '../../../../src/server/db/metadata-store.js';
import { newId } from '../../../../src/server/ground/secrets.js';
import { readyFileRow } from '../../../helpers/file-rows.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';

describe('GET /v1/files', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  let projectId: string;
  beforeEach(async () => {
    // Each test lists a fresh project of its own so earlier files do not interfere.
    const other = await t.otherProject();
    projectId = other.project.id;
    keys = other;
  });
  let keys: { secretKey: string; publishableKey: string };

  /** Rows written straight to the store: the only way to make many share a millisecond. */
  async function seed(count: number, createdAt: (index: number) => number): Promise<FileRow[]> {
    const rows: FileRow[] = [];
    for (let index = 0; index < count; index++) {
      const row = readyFileRow({
        id: newId(),
        projectId,
        name: `f${index}.txt`,
        mime: 'text/plain',
        size: index + 1,
        createdAt: createdAt(index),
      });
      await t.service.context.db.insertFile(row);
      rows.push(row);
    }
    return rows;
  }

  const list = (query = '') => t.api(`/v1/files${query}`, { key: keys.secretKey });

  async function pageThrough(limit: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const page: FileListResponse = await json<FileListResponse>(
        await list(`?limit=${limit}&cursor=${encodeURIComponent(cursor)}`),
      );
      pages++;
      ids.push(...page.files.map((file) => file.id));
      cursor = page.nextCursor;
      assert.ok(pages < 1000, 'paging does not end');
    }
    return { ids, pages };
  }

  it('lists newest first with the documented fields and default page size 50', async () => {
    const rows = await seed(60, (index) => 1_700_000_000_000 + index);
    const page = await json<FileListResponse>(await list());
    assert.equal(page.files.length, 50);
    assert.equal(page.files[0]?.id, rows[59]?.id);
    const first = page.files[0] as FileRecord;
    assert.deepEqual(first, {
      id: rows[59]?.id,
      name: 'f59.txt',
      mime: 'text/plain',
      size: 60,
      createdAt: 1_700_000_000_059,
      status: 'ready',
      visibility: 'public',
      url: `${t.cdnUrl}/${rows[59]?.id}/f59.txt`,
      metadata: {},
      deleteAt: null,
      scannedAt: null,
      placeholder: null,
    });
    const last = page.files[49] as FileRecord;
    assert.equal(page.nextCursor, `${last.createdAt}_${last.id}`);
  });

  it('pages files created in the same millisecond without loss or duplicates, in byte order of id', async () => {
    const rows = await seed(57, (index) => 1_700_000_000_000 + Math.floor(index / 20));
    const expected = [...rows]
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((row) => row.id);
    for (const limit of [1, 7, 20, 56, 57, 100]) {
      const { ids, pages } = await pageThrough(limit);
      assert.deepEqual(ids, expected, `limit ${limit}`);
      assert.equal(pages, Math.max(1, Math.ceil(57 / limit)), `pages at limit ${limit}`);
    }
  });

  it('ends with nextCursor null exactly on the last file', async () => {
    await seed(4, (index) => 1_700_000_000_000 + index);
    const first = await json<FileListResponse>(await list('?limit=2'));
    assert.notEqual(first.nextCursor, null);
    const second = await json<FileListResponse>(await list(`?limit=2&cursor=${first.nextCursor}`));
    assert.equal(second.files.length, 2);
    assert.equal(second.nextCursor, null);
    const empty = await json<FileListResponse>(await list());
    assert.equal(empty.files.length, 4);
    assert.equal(empty.nextCursor, null);
  });

  it('answers an empty project with no files and a null cursor', async () => {
    assert.deepEqual(await json<FileListResponse>(await list()), { files: [], nextCursor: null });
  });

  it('keeps a cursor working after its file is deleted, and skips deleted files', async () => {
    const rows = await seed(5, (index) => 1_700_000_000_000 + index);
    const first = await json<FileListResponse>(await list('?limit=2'));
    const deleted = await t.api(`/v1/files/${first.files[1]?.id}`, {
      method: 'DELETE',
      key: keys.secretKey,
    });
    assert.equal(deleted.status, 204);
    const rest = await json<FileListResponse>(await list(`?limit=10&cursor=${first.nextCursor}`));
    assert.deepEqual(
      rest.files.map((file) => file.id),
      [rows[2]?.id, rows[1]?.id, rows[0]?.id],
    );
    const all = await json<FileListResponse>(await list());
    assert.equal(all.files.length, 4);
    assert.ok(!all.files.some((file) => file.id === first.files[1]?.id));
  });

  it('refuses bad limit and cursor values', async () => {
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?limit=1.5',
      '?limit=-1',
      '?limit=1&limit=2',
    ]) {
      await expectError(await list(query), 400, 'invalid_request');
    }
    for (const cursor of ['abc', '123', '_abc', '12_', '1x_abc', '1_a/b', '99999999999999999_x']) {
      await expectError(
        await list(`?cursor=${encodeURIComponent(cursor)}`),
        400,
        'invalid_request',
      );
    }
    assert.equal((await list('?limit=100')).status, 200);
    assert.equal((await list('?cursor=')).status, 200);
  });

  it('includes pending uploads, marked as such', async () => {
    const signed = await json<{ id: string }>(
      await t.sign({ name: 'p.bin', size: 10 }, { key: keys.secretKey }),
      201,
    );
    const page = await json<FileListResponse>(await list());
    assert.equal(page.files[0]?.id, signed.id);
    assert.equal(page.files[0]?.status, 'pending');
    const record = await json<FileRecord>(
      await t.api(`/v1/files/${signed.id}`, { key: keys.secretKey }),
    );
    assert.equal(record.status, 'pending');
  });

  it('reads with the publishable key from an allowed origin', async () => {
    await seed(1, () => 1_700_000_000_000);
    const page = await json<FileListResponse>(
      await t.api('/v1/files', { key: keys.publishableKey, origin: ALLOWED_ORIGIN }),
    );
    assert.equal(page.files.length, 1);
  });
});
