import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { thumbHashToApproximateAspectRatio, thumbHashToAverageRGBA } from 'thumbhash';
import { SQLITE_MIGRATIONS } from '../../../src/server/db/sqlite/migrations.js';
import { SqliteMetadataStore } from '../../../src/server/db/sqlite/sqlite-store.js';
import { LocalDiskBlobStore } from '../../../src/server/storage/local-disk/local-disk-store.js';
import { orientedJpeg } from '../../helpers/images.js';

const run = promisify(execFile);

/** A data dir as the version before placeholders left it: ready files, no placeholder column. */
async function oldDataDir(dataDir: string, files: { id: string; mime: string; bytes: Buffer }[]) {
  const db = new Database(join(dataDir, 'filehost.db'));
  const ours = SQLITE_MIGRATIONS.findIndex((sql) => sql.includes('ADD COLUMN placeholder'));
  assert.ok(ours > 0);
  for (const [version, sql] of SQLITE_MIGRATIONS.slice(0, ours).entries()) {
    db.exec(sql);
    db.pragma(`user_version = ${version + 1}`);
  }
  db.exec(`INSERT INTO projects (id, name, plan, created_at) VALUES ('prj_old', 'Old', 'free', 1)`);
  const insert =
    db.prepare(`INSERT INTO files (id, project_id, name, mime, size, created_at, status)
    VALUES (?, 'prj_old', ?, ?, ?, 1, 'ready')`);
  const blobs = new LocalDiskBlobStore({
    root: join(dataDir, 'storage'),
    signingSecret: Buffer.alloc(32),
    apiUrl: () => 'http://127.0.0.1',
  });
  await mkdir(join(dataDir, 'storage', 'tmp'), { recursive: true });
  for (const file of files) {
    insert.run(file.id, file.id, file.mime, file.bytes.length);
    await blobs.put(file.id, Readable.from([file.bytes]));
  }
  db.close();
}

describe('admin placeholders fill', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-fill-'));
    await mkdir(join(dataDir, 'storage'), { recursive: true });
    const wide = await sharp({
      create: { width: 160, height: 80, channels: 3, background: { r: 230, g: 120, b: 30 } },
    })
      .png()
      .toBuffer();
    await oldDataDir(dataDir, [
      { id: 'wide', mime: 'image/png', bytes: wide },
      { id: 'turned', mime: 'image/jpeg', bytes: await orientedJpeg() },
      { id: 'notes', mime: 'text/plain', bytes: Buffer.from('words') },
      {
        id: 'broken',
        mime: 'image/png',
        bytes: Buffer.concat([wide.subarray(0, 33), Buffer.alloc(200, 7)]),
      },
    ]);
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  const admin = async (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', ...args], {
      env: { ...process.env, FILEHOST_DATA_DIR: dataDir },
    });

  const placeholders = async () => {
    const store = new SqliteMetadataStore(join(dataDir, 'filehost.db'));
    try {
      const of = async (id: string) => (await store.getVisibleFile('prj_old', id))?.placeholder;
      return {
        wide: await of('wide'),
        turned: await of('turned'),
        notes: await of('notes'),
        broken: await of('broken'),
      };
    } finally {
      await store.close();
    }
  };

  it('computes the placeholder of every older image, once; text and undecodable files keep none', async () => {
    const first = await admin('placeholders', 'fill');
    assert.match(first.stdout, /^2 placeholders made; 1 of 3 images without one do not decode\./);
    const made = await placeholders();
    assert.equal(made.notes, null);
    assert.equal(made.broken, null);
    const wide = Buffer.from(made.wide as string, 'base64');
    const average = thumbHashToAverageRGBA(wide);
    assert.ok(Math.abs(average.r * 255 - 230) < 16 && Math.abs(average.b * 255 - 30) < 16);
    assert.ok(thumbHashToApproximateAspectRatio(wide) > 1.5);
    // Orientation 6: shown 200 x 300.
    const turned = Buffer.from(made.turned as string, 'base64');
    assert.ok(thumbHashToApproximateAspectRatio(turned) < 0.8);

    // Again: nothing more to make, nothing changed.
    const second = await admin('placeholders', 'fill');
    assert.match(second.stdout, /^0 placeholders made; 1 of 1 images without one do not decode\./);
    assert.deepEqual(await placeholders(), made);
  });
});
