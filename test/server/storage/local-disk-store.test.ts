import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LocalDiskBlobStore } from '../../../src/server/storage/local-disk-store.js';
import { blobStoreConformance } from './blob-store.conformance.js';

blobStoreConformance('local disk', async () => {
  const root = await mkdtemp(join(tmpdir(), 'filehost-blobs-'));
  return {
    store: new LocalDiskBlobStore(root),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});

describe('LocalDiskBlobStore specifics', () => {
  it('removes temporary files a crash left behind when it recovers', async () => {
    const root = await mkdtemp(join(tmpdir(), 'filehost-blobs-'));
    try {
      const store = new LocalDiskBlobStore(root);
      await store.recover();
      await writeFile(join(root, 'tmp', 'abc.123'), 'half a file');
      await store.recover();
      assert.deepEqual(await readdir(join(root, 'tmp')), []);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('never turns a key into a path outside its folders', async () => {
    const root = await mkdtemp(join(tmpdir(), 'filehost-blobs-'));
    try {
      const store = new LocalDiskBlobStore(root);
      await store.recover();
      for (const key of ['../x', 'a/b', '', '.', 'a\\b']) {
        await assert.rejects(store.get(key), TypeError);
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
