import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { UploadResponse } from '../../src/api/types.js';
import { backupDataDir } from '../../src/server/admin/backup.js';
import { restoreDataDir } from '../../src/server/admin/restore.js';
import { configFromEnv } from '../../src/server/start/config-from-env.js';
import { startService } from '../../src/server/start/service.js';
import { json, patternBytes, startTestService, type TestService } from '../helpers/service.js';

/**
 * The order `admin backup` copies in, made to matter: files are uploaded and deleted on a
 * running service exactly before and after the database copy (the backup's own hooks),
 * where a backup copying in another order would lose bytes or keep a record without them.
 */
describe('admin backup: what changes around the database copy', () => {
  let t: TestService;
  let work: string;
  before(async () => {
    t = await startTestService();
    work = await mkdtemp(join(tmpdir(), 'filehost-backup-order-'));
  });
  after(async () => {
    await t.close();
    await rm(work, { recursive: true, force: true });
  });

  const upload = async (seed: number) => {
    const bytes = patternBytes(50_000 + seed, seed);
    const answer = await json<UploadResponse>(
      await t.api('/v1/upload', {
        method: 'POST',
        body: bytes,
        headers: { 'X-Filename': `${seed}.bin` },
      }),
      201,
    );
    return { id: answer.id, bytes };
  };
  const remove = async (id: string) => {
    assert.equal((await t.api(`/v1/files/${id}`, { method: 'DELETE' })).status, 204);
  };

  it('keeps the bytes of a file ready at the copy and deleted after it; records one deleted before its bytes were copied as deleted', async () => {
    const older = await upload(1);
    const deletedBefore = await upload(2);
    let newer!: { id: string; bytes: Uint8Array };
    let newerKept!: { id: string; bytes: Uint8Array };
    const target = join(work, 'backup');
    const manifest = await backupDataDir({
      dataDir: t.dataDir,
      target,
      // Made ready after the first copy of bytes, so copied only after the database.
      beforeDatabaseCopy: async () => {
        await remove(deletedBefore.id);
        newer = await upload(3);
        newerKept = await upload(4);
      },
      // Ready in the copy, then deleted (and its bytes removed) by the service.
      afterDatabaseCopy: async () => {
        await remove(older.id);
        await remove(newer.id);
      },
    });
    assert.deepEqual(
      manifest.files.map((file) => file.id).sort(),
      [older.id, newerKept.id].sort(),
      'the file deleted after the copy keeps the bytes copied before it',
    );
    assert.deepEqual(manifest.deletedDuringBackup, [newer.id]);
    assert.deepEqual(manifest.damagedInSource, []);

    const dataDir = join(work, 'restored');
    await restoreDataDir({ backup: target, dataDir });
    const restored = await startService({
      ...configFromEnv({ FILEHOST_DATA_DIR: dataDir, FILEHOST_LOG_LEVEL: 'silent' }),
      apiPort: 0,
      cdnPort: 0,
    });
    try {
      const get = (id: string) =>
        fetch(`${restored.apiUrl}/v1/files/${id}`, {
          headers: { Authorization: `Bearer ${restored.defaultProject.secretKey}` },
        });
      for (const kept of [older, newerKept]) {
        const record = await json<{ url: string; status: string }>(await get(kept.id));
        assert.equal(record.status, 'ready');
        const served = Buffer.from(await (await fetch(record.url)).arrayBuffer());
        assert.ok(served.equals(kept.bytes), `the bytes of ${kept.id}`);
      }
      for (const gone of [deletedBefore.id, newer.id]) assert.equal((await get(gone)).status, 404);
    } finally {
      await restored.close();
    }
  });

  it('stopped (Ctrl-C) midway, removes what it wrote and never makes the target', async () => {
    const stop = new AbortController();
    const target = join(work, 'stopped');
    await assert.rejects(
      backupDataDir({
        dataDir: t.dataDir,
        target,
        signal: stop.signal,
        beforeDatabaseCopy: async () => stop.abort(new Error('stopped')),
      }),
      /stopped/,
    );
    assert.deepEqual(
      (await readdir(work)).filter((name) => name.includes('stopped')),
      [],
      'neither the backup nor its hidden directory is left',
    );
  });

  it('goes into a new or an empty directory, never one that holds anything', async () => {
    const empty = join(work, 'empty');
    await mkdir(empty);
    await backupDataDir({ dataDir: t.dataDir, target: empty });
    assert.ok((await readdir(empty)).includes('manifest.json'));
    await assert.rejects(backupDataDir({ dataDir: t.dataDir, target: empty }), /is not empty/);
    assert.equal((await readdir(work)).filter((name) => name.startsWith('.empty.')).length, 0);
  });
});
