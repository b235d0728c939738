import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { handleErrors } from '../../../src/server/api/app.js';
import { registerLocalPartRoutes } from '../../../src/server/api/routes/local-part.js';
import { newId } from '../../../src/server/ground/secrets.js';
import { BlobBusyError, BlobNotFoundError } from '../../../src/server/storage/blob-store.js';
import { LocalDiskBlobStore } from '../../../src/server/storage/local-disk/local-disk-store.js';
import { patternBytes } from '../../helpers/bytes.js';
import { blobStoreConformance, heldParts } from './blob-store.conformance.js';

/** A store in a temporary folder, its part route served on a free loopback port. */
async function servedStore() {
  const root = await mkdtemp(join(tmpdir(), 'filehost-blobs-'));
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  let apiUrl = '';
  const store = new LocalDiskBlobStore({
    root,
    signingSecret: Buffer.alloc(32, 7),
    apiUrl: () => apiUrl,
  });
  registerLocalPartRoutes(app, store);
  handleErrors(app);
  apiUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    store,
    root,
    cleanup: async () => {
      await app.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

blobStoreConformance('local disk', servedStore);

describe('LocalDiskBlobStore specifics', () => {
  const withStore =
    (fn: (store: LocalDiskBlobStore, root: string) => Promise<void>) => async () => {
      const { store, root, cleanup } = await servedStore();
      try {
        await store.recover();
        await fn(store, root);
      } finally {
        await cleanup();
      }
    };

  async function* chunks(...parts: string[]): AsyncGenerator<Buffer> {
    for (const part of parts) yield Buffer.from(part);
  }

  /** A 4-byte multipart upload (one part). */
  async function fourBytes(store: LocalDiskBlobStore) {
    const key = newId();
    const uploadId = await store.createMultipart(key, {
      size: 4,
      partSize: 5 * 1024 * 1024,
      contentType: 'text/plain',
    });
    const upload = { key, uploadId, contentType: 'text/plain' };
    return { key, upload, part: { partNumber: 1, offset: 0, size: 4 } };
  }

  /** A 4-byte upload with a write of its only part under way (half sent), held open. */
  async function pausedWrite(store: LocalDiskBlobStore, first: string, second: string) {
    const { key, upload, part } = await fourBytes(store);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* source() {
      yield Buffer.from(first);
      await gate;
      yield Buffer.from(second);
    }
    const writing = store.writePart(key, part, source());
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { key, upload, part, writing, release };
  }

  it(
    'gives the file of an object (localPath, what variants are made from): its very bytes',
    withStore(async (store) => {
      const key = newId();
      const bytes = Buffer.from(patternBytes(3 * 1024 * 1024 + 17, 9));
      await store.put(key, Readable.from([bytes]));
      assert.deepEqual(await readFile(store.localPath(key)), bytes);
      await store.delete(key);
      await assert.rejects(readFile(store.localPath(key)), { code: 'ENOENT' });
    }),
  );

  it(
    'lets a newer write of a part win over one still running',
    withStore(async (store) => {
      const { key, upload, part, writing: older, release } = await pausedWrite(store, 'ss', 'ss');
      const newer = store.writePart(key, part, chunks('nnnn'));
      release();
      await assert.rejects(older, BlobBusyError);
      const { etag } = await newer;
      await store.completeMultipart(upload, [{ partNumber: 1, etag }]);
      const stream = await store.get(key);
      assert.equal(stream && (await new Response(stream as never).text()), 'nnnn');
    }),
  );

  it(
    'refuses to complete while a part is being written',
    withStore(async (store) => {
      const { upload, writing, release } = await pausedWrite(store, 'ab', 'cd');
      await assert.rejects(
        store.completeMultipart(upload, [{ partNumber: 1, etag: '"x"' }]),
        BlobBusyError,
      );
      release();
      const { etag } = await writing;
      await store.completeMultipart(upload, [{ partNumber: 1, etag }]);
    }),
  );

  it(
    'aborts a running write: it fails as gone, and later writes find nothing',
    withStore(async (store) => {
      const { key, upload, part, writing, release } = await pausedWrite(store, 'ab', 'cd');
      const aborting = store.abortMultipart(upload);
      release();
      await assert.rejects(writing, BlobNotFoundError);
      await aborting;
      await assert.rejects(store.writePart(key, part, chunks('abcd')), BlobNotFoundError);
    }),
  );

  it(
    'a failed part write leaves the part not whole and the upload usable',
    withStore(async (store) => {
      const { key, upload, part } = await fourBytes(store);
      async function* failing() {
        yield Buffer.from('zz');
        throw new Error('source failed');
      }
      await assert.rejects(store.writePart(key, part, failing()));
      assert.deepEqual(await store.listParts(upload), []);
      const { etag } = await store.writePart(key, part, chunks('abcd'));
      await store.completeMultipart(upload, [{ partNumber: 1, etag }]);
    }),
  );

  it(
    'refuses to complete with parts that are not the ones it holds',
    withStore(async (store) => {
      const { key, upload, part, writing, release } = await pausedWrite(store, 'ab', 'cd');
      release();
      await writing;
      await assert.rejects(store.completeMultipart(upload, [{ partNumber: 1, etag: '"other"' }]));
      assert.equal(await store.head(key), null);
      assert.equal((await store.listParts(upload)).length, part.partNumber);
    }),
  );

  it(
    'removes what a crash left: temporary files, half uploads, the old layout; keeps the rest',
    withStore(async (store, root) => {
      await writeFile(join(root, 'tmp', 'abc.123'), 'half a file');
      await mkdir(join(root, 'partial'));
      await writeFile(join(root, 'partial', 'abc'), 'an upload of the old layout');
      // A sign that died before its log, and a completion that died before removing one.
      await writeFile(join(root, 'uploads', 'orphan-data'), '');
      await writeFile(join(root, 'uploads', 'orphan-log.log'), '{}\n');
      const { key, upload, part } = await fourBytes(store);
      const { etag } = await store.writePart(key, part, chunks('abcd'));
      // A line the process died writing: never flushed, never acknowledged.
      await appendFile(join(root, 'uploads', `${key}.log`), '{"part":1,"size":4,"et');
      await store.recover();
      assert.deepEqual(await readdir(join(root, 'tmp')), []);
      assert.equal((await readdir(root)).includes('partial'), false);
      assert.deepEqual((await readdir(join(root, 'uploads'))).sort(), [key, `${key}.log`].sort());
      // A new process reads the upload back from its log.
      const again = new LocalDiskBlobStore({
        root,
        signingSecret: Buffer.alloc(32, 7),
        apiUrl: () => '',
      });
      await again.recover();
      // What the log says survives a restart, when each part arrived included.
      assert.deepEqual(await heldParts(again, upload), [{ partNumber: 1, size: 4, etag }]);
      await again.completeMultipart(upload, [{ partNumber: 1, etag }]);
      const stream = await again.get(key);
      assert.equal(stream && (await new Response(stream as never).text()), 'abcd');
      assert.deepEqual(await readdir(join(root, 'uploads')), []);
    }),
  );

  it(
    'never turns a key into a path outside its folders',
    withStore(async (store) => {
      for (const key of ['../x', 'a/b', '', '.', 'a\\b']) {
        await assert.rejects(store.get(key), TypeError);
      }
    }),
  );
});
