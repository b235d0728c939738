import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { UploadResponse } from '../../../src/api/types.js';
import {
  CDN_CACHED_FILE_BYTES,
  cachedFileBytes,
  type ServedFile,
  ServingCache,
} from '../../../src/server/cache/serving-cache.js';
import type { FileRow } from '../../../src/server/db/metadata-store.js';
import { LOCAL_ONLY } from '../../helpers/scale-mode.js';
import {
  assertSameBytes,
  expectError,
  json,
  patternBytes,
  startTestService,
  storedFiles,
  type TestService,
} from '../../helpers/service.js';

function served(id: string, bytes: number): ServedFile {
  return {
    row: { id, size: bytes } as FileRow,
    headers: {},
    bytes: Buffer.alloc(bytes),
    wholeHead: ['content-length', String(bytes)],
  };
}

describe('the CDN cache (LRU with a byte budget)', () => {
  const options = { maxBytes: 10 * 2048, maxFileBytes: 1024, trustRecords: true };

  it('keeps at most its budget, dropping the least recently used first', () => {
    const cache = new ServingCache(options);
    for (let i = 0; i < 10; i++) cache.put(`f${i}`, served(`f${i}`, 1024), cache.epoch);
    assert.equal(cache.size.entries, 10);
    assert.ok(cache.get('f0'), 'f0 used again: now the most recent');
    for (let i = 10; i < 15; i++) cache.put(`f${i}`, served(`f${i}`, 1024), cache.epoch);
    assert.ok(cache.size.bytes <= options.maxBytes, `${cache.size.bytes} bytes`);
    assert.equal(cache.size.entries, 10);
    assert.ok(cache.get('f0'), 'the recently used one stayed');
    for (let i = 1; i <= 5; i++) assert.equal(cache.get(`f${i}`), undefined, `f${i} dropped`);
  });

  it('never puts back a file deleted while its lookup was running', () => {
    const cache = new ServingCache(options);
    const epoch = cache.epoch;
    // The lookup read the row (still ready) ...
    cache.forget('gone'); // ... the delete happened ...
    cache.put('gone', served('gone', 10), epoch); // ... and the lookup finished.
    assert.equal(cache.get('gone'), undefined);
    cache.put('kept', served('kept', 10), cache.epoch);
    assert.ok(cache.get('kept'));
    cache.forget('kept');
    assert.equal(cache.get('kept'), undefined);
  });

  it('drops what was made from a file (its variants) with the file, and their bytes from the count', () => {
    const cache = new ServingCache(options);
    cache.put('img', served('img', 10), cache.epoch);
    cache.putDerived('img', '/img?w=16', served('img', 100), cache.epoch);
    cache.putDerived('img', '/img/a.png?w=32', served('img', 100), cache.epoch);
    cache.putDerived('other', '/other?w=16', served('other', 100), cache.epoch);
    assert.equal(cache.size.entries, 4);
    cache.forget('img');
    assert.equal(cache.get('/img?w=16'), undefined);
    assert.equal(cache.get('/img/a.png?w=32'), undefined);
    assert.ok(cache.get('/other?w=16'));
    assert.deepEqual(cache.size, { entries: 1, bytes: 100 + 1024 });
    // Made while the file was being deleted: not kept.
    const epoch = cache.epoch;
    cache.forget('other');
    cache.putDerived('other', '/other?w=32', served('other', 100), epoch);
    assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
  });

  it('keeps the bytes of files up to 1 MiB, less when its budget is small', () => {
    assert.equal(cachedFileBytes(64 * 1024 * 1024), 1024 * 1024);
    assert.equal(cachedFileBytes(4 * 1024 * 1024), 256 * 1024, 'room for 16 at the limit');
    assert.equal(cachedFileBytes(0), 0, 'off: no file is read whole to be dropped');
  });

  it('keeps nothing with a budget of 0', () => {
    const cache = new ServingCache({ ...options, maxBytes: 0 });
    cache.put('a', served('a', 10), cache.epoch);
    assert.equal(cache.size.entries, 0);
  });
});

describe('the CDN serves small files from memory, never a deleted one', {
  skip: LOCAL_ONLY,
}, () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  const upload = async (bytes: Uint8Array<ArrayBuffer>) =>
    json<UploadResponse>(await t.api('/v1/upload', { method: 'POST', body: bytes }), 201);

  it('answers from memory once read, with the same bytes and headers', async () => {
    const bytes = patternBytes(1024, 4);
    const file = await upload(bytes);
    const first = await fetch(`${t.cdnUrl}/${file.id}`);
    assertSameBytes(await first.arrayBuffer(), bytes);
    // The bytes on disk go behind the service's back: only memory can answer now.
    for (const path of await storedFiles(t.dataDir)) {
      if (path.endsWith(file.id)) await rm(join(t.dataDir, 'storage', path));
    }
    const again = await fetch(`${t.cdnUrl}/${file.id}`);
    assert.equal(again.status, 200);
    assertSameBytes(await again.arrayBuffer(), bytes);
    // All but the moment and each answer's own request id.
    const same = (headers: Headers) =>
      [...headers].filter(([name]) => name !== 'date' && name !== 'x-request-id');
    assert.deepEqual(same(again.headers), same(first.headers));
    assert.ok(again.headers.get('x-request-id'), 'the answer from memory names its request');
    const range = await fetch(`${t.cdnUrl}/${file.id}`, { headers: { Range: 'bytes=10-19' } });
    assert.equal(range.status, 206);
    assertSameBytes(await range.arrayBuffer(), bytes.subarray(10, 20));
  });

  it('answers 404 at once after a DELETE, though the file was in memory', async () => {
    const file = await upload(patternBytes(2048, 5));
    assert.equal((await fetch(`${t.cdnUrl}/${file.id}`)).status, 200);
    assert.equal((await t.api(`/v1/files/${file.id}`, { method: 'DELETE' })).status, 204);
    await expectError(await fetch(`${t.cdnUrl}/${file.id}`), 404, 'not_found');
  });

  it('answers a 1 MiB file from memory too', async () => {
    const bytes = patternBytes(CDN_CACHED_FILE_BYTES, 7);
    const file = await upload(bytes);
    assertSameBytes(await (await fetch(`${t.cdnUrl}/${file.id}`)).arrayBuffer(), bytes);
    for (const path of await storedFiles(t.dataDir)) {
      if (path.endsWith(file.id)) await rm(join(t.dataDir, 'storage', path));
    }
    const again = await fetch(`${t.cdnUrl}/${file.id}`);
    assert.equal(again.status, 200);
    assertSameBytes(await again.arrayBuffer(), bytes);
  });

  it('streams a file over the size kept in memory from the store each time', async () => {
    const bytes = patternBytes(CDN_CACHED_FILE_BYTES + 1, 6);
    const file = await upload(bytes);
    assertSameBytes(await (await fetch(`${t.cdnUrl}/${file.id}`)).arrayBuffer(), bytes);
    for (const path of await storedFiles(t.dataDir)) {
      if (path.endsWith(file.id)) await rm(join(t.dataDir, 'storage', path));
    }
    // Its record is remembered, its bytes are not: the store no longer has them.
    assert.equal((await fetch(`${t.cdnUrl}/${file.id}`)).status, 404);
  });
});
