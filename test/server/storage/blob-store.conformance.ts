import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, it } from 'node:test';
import { newId } from '../../../src/server/secrets.js';
import {
  BlobBusyError,
  BlobNotFoundError,
  type BlobStore,
} from '../../../src/server/storage/blob-store.js';

/**
 * The contract every BlobStore keeps. A new implementation (S3-compatible storage, say)
 * calls this with a factory and must pass it unchanged.
 */
export function blobStoreConformance(
  name: string,
  create: () => Promise<{ store: BlobStore; cleanup: () => Promise<void> }>,
): void {
  const withStore = (fn: (store: BlobStore) => Promise<void>) => async () => {
    const { store, cleanup } = await create();
    try {
      await store.recover();
      await fn(store);
    } finally {
      await cleanup();
    }
  };

  async function* chunks(...parts: string[]): AsyncGenerator<Buffer> {
    for (const part of parts) yield Buffer.from(part);
  }

  async function* failing(afterBytes: string): AsyncGenerator<Buffer> {
    yield Buffer.from(afterBytes);
    throw new Error('source failed');
  }

  /** A part body that sends its first half, then waits until released: a write in progress. */
  function paused(first: string, second: string) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* source() {
      yield Buffer.from(first);
      await gate;
      yield Buffer.from(second);
    }
    return { source: source(), release };
  }

  /** A 4-byte multipart upload with a write of its only part under way (half sent). */
  async function pausedWrite(store: BlobStore, first: string, second: string) {
    const key = newId();
    const uploadId = await store.createMultipart(key, 4);
    const part = { partNumber: 1, offset: 0, size: 4 };
    const { source, release } = paused(first, second);
    const writing = store.writePart(key, uploadId, part, source);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { key, uploadId, part, writing, release };
  }

  const read = async (store: BlobStore, key: string, range?: { start: number; end: number }) => {
    const stream = await store.get(key, range);
    return stream ? text(stream) : null;
  };

  describe(`BlobStore conformance: ${name}`, () => {
    it(
      'puts an object whole and reads it back, whole or by range',
      withStore(async (store) => {
        const key = newId();
        assert.deepEqual(await store.put(key, chunks('hello ', 'world')), { size: 11 });
        assert.equal(await read(store, key), 'hello world');
        assert.equal(await read(store, key, { start: 6, end: 10 }), 'world');
        assert.equal(await read(store, key, { start: 0, end: 0 }), 'h');
      }),
    );

    it(
      'accepts a Readable as the source',
      withStore(async (store) => {
        const key = newId();
        await store.put(key, Readable.from([Buffer.from('abc')]));
        assert.equal(await read(store, key), 'abc');
      }),
    );

    it(
      'keeps nothing when the source fails',
      withStore(async (store) => {
        const key = newId();
        await assert.rejects(store.put(key, failing('partial')), /source failed/);
        assert.equal(await store.get(key), null);
      }),
    );

    it(
      'answers null for a missing object and deletes idempotently',
      withStore(async (store) => {
        const key = newId();
        assert.equal(await store.get(key), null);
        await store.delete(key);
        await store.put(key, chunks('x'));
        await store.delete(key);
        await store.delete(key);
        assert.equal(await store.get(key), null);
      }),
    );

    it(
      'assembles a multipart upload from parts written in any order',
      withStore(async (store) => {
        const key = newId();
        const uploadId = await store.createMultipart(key, 10);
        const p1 = { partNumber: 1, offset: 0, size: 4 };
        const p2 = { partNumber: 2, offset: 4, size: 4 };
        const p3 = { partNumber: 3, offset: 8, size: 2 };
        const parts = [p1, p2, p3];
        const etags = [];
        for (const [part, body] of [
          [p3, 'ij'],
          [p1, 'abcd'],
          [p2, 'efgh'],
        ] as const) {
          const { etag } = await store.writePart(key, uploadId, part, chunks(body));
          assert.match(etag, /^".+"$/);
          etags.push(etag);
        }
        assert.equal(new Set(etags).size, 3);
        assert.equal(await store.get(key), null, 'not visible before completion');
        await store.completeMultipart(key, uploadId, parts);
        assert.equal(await read(store, key), 'abcdefghij');
        // Completing again (a retried request) succeeds and changes nothing.
        await store.completeMultipart(key, uploadId, parts);
        assert.equal(await read(store, key), 'abcdefghij');
      }),
    );

    it(
      'replaces a re-written part, with a new ETag',
      withStore(async (store) => {
        const key = newId();
        const uploadId = await store.createMultipart(key, 4);
        const part = { partNumber: 1, offset: 0, size: 4 };
        const first = await store.writePart(key, uploadId, part, chunks('aaaa'));
        const second = await store.writePart(key, uploadId, part, chunks('bbbb'));
        assert.notEqual(second.etag, first.etag);
        await store.completeMultipart(key, uploadId, [part]);
        assert.equal(await read(store, key), 'bbbb');
      }),
    );

    it(
      'lets a newer write of a part win over one still running',
      withStore(async (store) => {
        const {
          key,
          uploadId,
          part,
          writing: older,
          release,
        } = await pausedWrite(store, 'ss', 'ss');
        const newer = store.writePart(key, uploadId, part, chunks('nnnn'));
        release();
        await assert.rejects(older);
        await newer;
        await store.completeMultipart(key, uploadId, [part]);
        assert.equal(await read(store, key), 'nnnn');
      }),
    );

    it(
      'refuses to complete while a part is being written',
      withStore(async (store) => {
        const { key, uploadId, part, writing, release } = await pausedWrite(store, 'ab', 'cd');
        await assert.rejects(store.completeMultipart(key, uploadId, [part]), BlobBusyError);
        release();
        await writing;
        await store.completeMultipart(key, uploadId, [part]);
        assert.equal(await read(store, key), 'abcd');
      }),
    );

    it(
      'aborts: running writes fail, later writes find nothing',
      withStore(async (store) => {
        const { key, uploadId, part, writing, release } = await pausedWrite(store, 'ab', 'cd');
        const aborting = store.abortMultipart(key, uploadId);
        release();
        await assert.rejects(writing);
        await aborting;
        await assert.rejects(
          store.writePart(key, uploadId, part, chunks('abcd')),
          BlobNotFoundError,
        );
        await assert.rejects(store.completeMultipart(key, uploadId, [part]), BlobNotFoundError);
        assert.equal(await store.get(key), null);
      }),
    );

    it(
      'a failed part write leaves the upload usable',
      withStore(async (store) => {
        const key = newId();
        const uploadId = await store.createMultipart(key, 4);
        const part = { partNumber: 1, offset: 0, size: 4 };
        await assert.rejects(store.writePart(key, uploadId, part, failing('zz')));
        await store.writePart(key, uploadId, part, chunks('abcd'));
        await store.completeMultipart(key, uploadId, [part]);
        assert.equal(await read(store, key), 'abcd');
      }),
    );

    it(
      'deleting an object removes a pending multipart upload under its key too',
      withStore(async (store) => {
        const key = newId();
        const uploadId = await store.createMultipart(key, 4);
        await store.delete(key, uploadId);
        await assert.rejects(
          store.writePart(key, uploadId, { partNumber: 1, offset: 0, size: 4 }, chunks('abcd')),
          BlobNotFoundError,
        );
      }),
    );
  });
}
