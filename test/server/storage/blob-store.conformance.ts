import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';
import { describe, it } from 'node:test';
import type { SignedPart } from '../../../src/api/types.js';
import { newId } from '../../../src/server/ground/secrets.js';
import {
  BlobNotFoundError,
  type BlobStore,
  type HeldPart,
  type MultipartUpload,
} from '../../../src/server/storage/blob-store.js';
import { patternBytes } from '../../helpers/bytes.js';

const MiB = 1024 * 1024;
/** S3's smallest part but the last: every store must take parts of this size. */
const PART_SIZE = 5 * MiB;

/**
 * The contract every BlobStore keeps, exercised as the service and its clients use it:
 * parts travel by HTTP to the URLs the store signs, never through a store method. The
 * local disk and S3-compatible storage (Ceph's RADOS Gateway in the tests) each call this
 * with a factory and must pass it unchanged. `create` may be called for every test.
 */
export function blobStoreConformance(
  name: string,
  create: () => Promise<{ store: BlobStore; cleanup: () => Promise<void> }>,
  options: { skip?: string } = {},
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

  const read = async (store: BlobStore, key: string, range?: { start: number; end: number }) => {
    const stream = await store.get(key, range);
    return stream ? text(stream) : null;
  };

  /** Sends a part as a browser would: exactly the signed method, URL and headers. */
  const send = (
    signed: SignedPart,
    body: Uint8Array<ArrayBuffer>,
    headers: Record<string, string> = {},
  ) =>
    fetch(signed.url, {
      method: signed.method,
      headers: { ...signed.headers, ...headers },
      body,
    });

  /** A multipart upload of `bytes` laid out in parts of PART_SIZE, signed for an hour. */
  async function start(
    store: BlobStore,
    bytes: Uint8Array<ArrayBuffer>,
    contentType = 'text/plain',
  ) {
    const key = newId();
    const uploadId = await store.createMultipart(key, {
      size: bytes.length,
      partSize: PART_SIZE,
      contentType,
    });
    const upload: MultipartUpload = { key, uploadId, contentType };
    const count = Math.ceil(bytes.length / PART_SIZE);
    const layout = Array.from({ length: count }, (_, index) => ({
      partNumber: index + 1,
      offset: index * PART_SIZE,
      size: Math.min(PART_SIZE, bytes.length - index * PART_SIZE),
    }));
    const expiresAt = Date.now() + 3_600_000;
    const signed = await Promise.all(layout.map((part) => store.signPart(upload, part, expiresAt)));
    const body = (partNumber: number) => {
      const part = layout[partNumber - 1] as (typeof layout)[number];
      return bytes.subarray(part.offset, part.offset + part.size);
    };
    /** PUTs a part and answers its ETag, read from the response header as S3 clients do. */
    const put = async (partNumber: number, content = body(partNumber)) => {
      const response = await send(signed[partNumber - 1] as SignedPart, content);
      await response.arrayBuffer();
      assert.equal(response.status, 200, `part ${partNumber} PUT`);
      const etag = response.headers.get('etag');
      assert.match(etag ?? '', /^".+"$/, 'a quoted ETag header');
      return etag as string;
    };
    return { key, upload, layout, signed, put, body, expiresAt };
  }

  describe(`BlobStore conformance: ${name}`, { skip: options.skip }, () => {
    it(
      'answers its readiness probe while it is reachable',
      withStore(async (store) => {
        await store.probe();
        await Promise.all([store.probe(), store.probe()]);
      }),
    );

    it(
      'puts an object whole and reads it back, whole or by range',
      withStore(async (store) => {
        const key = newId();
        const put = await store.put(key, chunks('hello ', 'world'), { contentType: 'text/plain' });
        assert.deepEqual(put, { size: 11 });
        assert.deepEqual(await store.head(key), { size: 11 });
        assert.equal(await read(store, key), 'hello world');
        assert.equal(await read(store, key, { start: 6, end: 10 }), 'world');
        assert.equal(await read(store, key, { start: 0, end: 0 }), 'h');
      }),
    );

    it(
      'reads a range of an object in one buffer (readRange, the CDN small answers), null for none',
      withStore(async (store) => {
        assert.ok(store.readRange, 'both stores read small ranges in one buffer');
        const key = newId();
        const bytes = Buffer.from(patternBytes(300_000, 4));
        await store.put(key, Readable.from([bytes]), { contentType: 'application/octet-stream' });
        for (const [start, end] of [
          [0, bytes.length - 1],
          [0, 0],
          [1000, 1999],
          [bytes.length - 1, bytes.length - 1],
        ] as const) {
          const range = { start, end };
          assert.deepEqual(await store.readRange(key, range), bytes.subarray(start, end + 1));
        }
        assert.equal(await store.readRange(newId(), { start: 0, end: 9 }), null);
        // An object shorter than the range asked is a fault, never a short answer.
        await assert.rejects(store.readRange(key, { start: 0, end: bytes.length }), /ends before/);
      }),
    );

    it(
      'sends a range of an object itself where it can (openSender, the CDN larger answers), null for none',
      withStore(async (store) => {
        if (!store.openSender) return;
        const key = newId();
        const bytes = Buffer.from(patternBytes(700_000, 5));
        await store.put(key, Readable.from([bytes]), { contentType: 'application/octet-stream' });
        for (const [start, end] of [
          [0, bytes.length - 1],
          [70_000, 600_000],
          [bytes.length - 1, bytes.length - 1],
        ] as const) {
          const sender = await store.openSender(key, { start, end });
          assert.ok(sender, 'an object that exists');
          // Sent as an answer on a real connection, which is what a sender writes to.
          const server = createServer((_request, response) => void sender.sendTo(response));
          await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
          try {
            const { port } = server.address() as AddressInfo;
            const sent = Buffer.from(
              await (await fetch(`http://127.0.0.1:${port}/`)).arrayBuffer(),
            );
            assert.deepEqual(sent, bytes.subarray(start, end + 1), `${start}-${end}`);
          } finally {
            server.close();
          }
        }
        assert.equal(await store.openSender(newId(), { start: 0, end: 9 }), null);
      }),
    );

    it(
      'keeps derived objects beside an object: read whole or by range, all removed by deleteDerived',
      withStore(async (store) => {
        const key = newId();
        const other = newId();
        await store.put(key, chunks('original'), { contentType: 'image/png' });
        assert.equal(await store.headDerived(key, 'w640.webp'), null);
        assert.equal(await store.getDerived(key, 'w640.webp'), null);
        await store.putDerived(key, 'w640.webp', Buffer.from('variant one'), {
          contentType: 'image/webp',
        });
        await store.putDerived(key, 'w16_h16_fill_q75.png', Buffer.from('two'), {
          contentType: 'image/png',
        });
        await store.putDerived(other, 'w640.webp', Buffer.from('another key'), {
          contentType: 'image/webp',
        });
        assert.deepEqual(await store.headDerived(key, 'w640.webp'), { size: 11 });
        const whole = await store.getDerived(key, 'w640.webp');
        assert.equal(whole && (await text(whole)), 'variant one');
        const part = await store.getDerived(key, 'w640.webp', { start: 8, end: 10 });
        assert.equal(part && (await text(part)), 'one');
        // Written again (two instances making the same variant): the later bytes stand.
        await store.putDerived(key, 'w16_h16_fill_q75.png', Buffer.from('TWO'), {
          contentType: 'image/png',
        });
        const again = await store.getDerived(key, 'w16_h16_fill_q75.png');
        assert.equal(again && (await text(again)), 'TWO');
        assert.equal(await read(store, key), 'original', 'the object itself is untouched');

        // One removed alone (the least recently served of many); removing none is fine.
        await store.putDerived(key, 'gone.webp', Buffer.from('x'), { contentType: 'image/webp' });
        await store.deleteDerivedObject(key, 'gone.webp');
        assert.equal(await store.headDerived(key, 'gone.webp'), null);
        assert.deepEqual(await store.headDerived(key, 'w640.webp'), { size: 11 });
        await store.deleteDerivedObject(key, 'gone.webp');

        await store.deleteDerived(key);
        assert.equal(await store.headDerived(key, 'w640.webp'), null);
        assert.equal(await store.getDerived(key, 'w16_h16_fill_q75.png'), null);
        assert.equal(await read(store, key), 'original', 'deleteDerived leaves the object');
        assert.deepEqual(await store.headDerived(other, 'w640.webp'), { size: 11 });
        await store.deleteDerived(key); // removing none is fine
        await assert.rejects(
          store.putDerived(key, '../escape', Buffer.from('x'), { contentType: 'text/plain' }),
          TypeError,
        );
        await store.deleteDerived(other);
        await store.delete(key);
      }),
    );

    it(
      'streams a large object in and out without changing a byte',
      withStore(async (store) => {
        const key = newId();
        const bytes = patternBytes(12 * MiB + 7);
        const source = Readable.from(
          (function* () {
            for (let at = 0; at < bytes.length; at += 256 * 1024) {
              yield Buffer.from(bytes.subarray(at, at + 256 * 1024));
            }
          })(),
        );
        assert.deepEqual(
          await store.put(key, source, { contentType: 'application/octet-stream' }),
          {
            size: bytes.length,
          },
        );
        const stream = await store.get(key);
        assert.ok(stream);
        assert.ok((await buffer(stream)).equals(bytes));
        const tail = await store.get(key, { start: bytes.length - 3, end: bytes.length - 1 });
        assert.ok(tail);
        assert.ok((await buffer(tail)).equals(bytes.subarray(bytes.length - 3)));
      }),
    );

    it(
      'keeps nothing when the source fails',
      withStore(async (store) => {
        const key = newId();
        await assert.rejects(
          store.put(key, failing('partial'), { contentType: 'text/plain' }),
          /source failed/,
        );
        assert.equal(await store.get(key), null);
        assert.equal(await store.head(key), null);
      }),
    );

    it(
      'answers null for a missing object and deletes idempotently',
      withStore(async (store) => {
        const key = newId();
        assert.equal(await store.get(key), null);
        assert.equal(await store.head(key), null);
        await store.delete(key);
        await store.put(key, chunks('x'), { contentType: 'text/plain' });
        await store.delete(key);
        await store.delete(key);
        assert.equal(await store.get(key), null);
      }),
    );

    it(
      'assembles a multipart upload from parts PUT in any order to the signed URLs',
      withStore(async (store) => {
        const bytes = patternBytes(2 * PART_SIZE + 10);
        const { key, upload, put } = await start(store, bytes);
        assert.deepEqual(await store.listParts(upload), []);
        const etags = new Map<number, string>();
        for (const partNumber of [3, 1, 2]) etags.set(partNumber, await put(partNumber));
        assert.equal(new Set(etags.values()).size, 3);
        assert.deepEqual(await heldParts(store, upload), [
          { partNumber: 1, size: PART_SIZE, etag: etags.get(1) },
          { partNumber: 2, size: PART_SIZE, etag: etags.get(2) },
          { partNumber: 3, size: 10, etag: etags.get(3) },
        ]);
        assert.equal(await store.get(key), null, 'not an object before completion');
        const parts = [1, 2, 3].map((partNumber) => ({
          partNumber,
          etag: etags.get(partNumber) as string,
        }));
        await store.completeMultipart(upload, parts);
        assert.deepEqual(await store.head(key), { size: bytes.length });
        const stream = await store.get(key);
        assert.ok(stream);
        assert.ok((await buffer(stream)).equals(bytes));
        // Completing again (a retried request) succeeds and changes nothing.
        await store.completeMultipart(upload, parts);
        assert.deepEqual(await store.head(key), { size: bytes.length });
      }),
    );

    it(
      'replaces a re-sent part, with a new ETag',
      withStore(async (store) => {
        const { key, upload, put } = await start(store, Buffer.from('aaaa'));
        const first = await put(1);
        const second = await put(1, Buffer.from('bbbb'));
        assert.notEqual(second, first);
        assert.deepEqual(await heldParts(store, upload), [
          { partNumber: 1, size: 4, etag: second },
        ]);
        await store.completeMultipart(upload, [{ partNumber: 1, etag: second }]);
        assert.equal(await read(store, key), 'bbbb');
      }),
    );

    it(
      'refuses a part of another length than signed, and does not hold it',
      withStore(async (store) => {
        const { upload, signed } = await start(store, Buffer.from('abcd'));
        for (const body of [Buffer.from('abc'), Buffer.from('abcde')]) {
          const response = await send(signed[0] as SignedPart, body);
          await response.arrayBuffer();
          assert.ok(response.status >= 400 && response.status < 500, `status ${response.status}`);
        }
        assert.deepEqual(await store.listParts(upload), []);
      }),
    );

    it(
      'refuses a part URL past its expiry',
      withStore(async (store) => {
        const { upload, layout } = await start(store, Buffer.from('abcd'));
        const signed = await store.signPart(upload, layout[0] as never, Date.now() + 1000);
        await new Promise((resolve) => setTimeout(resolve, 2100));
        const response = await send(signed, Buffer.from('abcd'));
        await response.arrayBuffer();
        assert.equal(response.status, 403);
        assert.deepEqual(await store.listParts(upload), []);
      }),
    );

    it(
      'aborts: later parts are refused, and nothing can be listed or completed',
      withStore(async (store) => {
        const { key, upload, put, signed } = await start(store, Buffer.from('abcd'));
        const etag = await put(1);
        await store.abortMultipart(upload);
        await store.abortMultipart(upload);
        const response = await send(signed[0] as SignedPart, Buffer.from('abcd'));
        await response.arrayBuffer();
        assert.equal(response.status, 404);
        await assert.rejects(store.listParts(upload), BlobNotFoundError);
        await assert.rejects(
          store.completeMultipart(upload, [{ partNumber: 1, etag }]),
          BlobNotFoundError,
        );
        assert.equal(await store.get(key), null);
      }),
    );

    it(
      'stores parts the service hands it (putPart, tus): rewritten parts replace, then completes',
      withStore(async (store) => {
        const bytes = Buffer.from(`${'a'.repeat(PART_SIZE)}tail`);
        const { key, upload, layout } = await start(store, bytes);
        const [first, second] = layout as [(typeof layout)[0], (typeof layout)[0]];
        const slice = (part: typeof first) => bytes.subarray(part.offset, part.offset + part.size);
        const damaged = await store.putPart(upload, second, Buffer.from('XXXX'));
        const firstEtag = await store.putPart(upload, first, slice(first));
        const secondEtag = await store.putPart(upload, second, slice(second));
        assert.match(firstEtag.etag, /^".+"$/);
        assert.notEqual(secondEtag.etag, damaged.etag, 'other bytes, another ETag');
        assert.deepEqual(
          (await heldParts(store, upload)).map(({ partNumber, etag }) => ({ partNumber, etag })),
          [
            { partNumber: 1, etag: firstEtag.etag },
            { partNumber: 2, etag: secondEtag.etag },
          ],
        );
        await store.completeMultipart(upload, [
          { partNumber: 1, etag: firstEtag.etag },
          { partNumber: 2, etag: secondEtag.etag },
        ]);
        assert.equal(await read(store, key), bytes.toString());
        await assert.rejects(store.putPart(upload, first, slice(first)), BlobNotFoundError);
      }),
    );

    it(
      'deleting a key removes a pending multipart upload under it too',
      withStore(async (store) => {
        const { key, upload, put } = await start(store, Buffer.from('abcd'));
        await put(1);
        await store.delete(key, upload.uploadId);
        await assert.rejects(store.listParts(upload), BlobNotFoundError);
        assert.equal(await store.get(key), null);
      }),
    );
  });
}

/**
 * The parts a store holds, as `listParts` answers them, with when each arrived checked (a
 * time within the last `withinMs`, ms since the epoch: S3 gives whole seconds) and then
 * left out, so the rest compares exactly.
 */
export async function heldParts(
  store: BlobStore,
  upload: MultipartUpload,
  withinMs = 120_000,
): Promise<Omit<HeldPart, 'arrivedAt'>[]> {
  const now = Date.now();
  return (await store.listParts(upload)).map(({ arrivedAt, ...part }) => {
    assert.equal(typeof arrivedAt, 'number', `part ${part.partNumber} says when it arrived`);
    assert.ok(
      (arrivedAt as number) <= now + 1000 && (arrivedAt as number) > now - withinMs,
      `part ${part.partNumber} arrived at ${arrivedAt}, now ${now}`,
    );
    return part;
  });
}
