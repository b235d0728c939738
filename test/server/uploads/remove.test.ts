import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { EventListResponse } from '../../../src/api/events.js';
import type { UploadResponse } from '../../../src/api/types.js';
import { fileEvent } from '../../../src/server/events/file-events.js';
import { removeFile } from '../../../src/server/files/remove.js';
import { sweep } from '../../../src/server/uploads/sweeper.js';
import { fill, isFull, serviceOnSmallDisk } from '../../helpers/full-disk.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import { expectError, json, startTestService, type TestService } from '../../helpers/service.js';
import { isRoot } from '../../helpers/system.js';

const MiB = 1024 * 1024;

async function upload(t: TestService, bytes: Uint8Array<ArrayBuffer>): Promise<UploadResponse> {
  return json<UploadResponse>(await t.api('/v1/upload', { method: 'POST', body: bytes }), 201);
}

/** Fetches a file from the CDN until its memory cache holds it (the first read fills it). */
async function servedFromMemory(t: TestService, file: UploadResponse): Promise<void> {
  const cache = t.service.context.servingCache;
  for (let attempt = 0; attempt < 3 && !cache.get(file.id); attempt++) {
    const served = await fetch(publicUrlOf(file));
    assert.equal(served.status, 200);
    await served.arrayBuffer();
  }
  assert.ok(cache.get(file.id), 'the CDN serves the file from memory');
}

/**
 * `removeFile` (src/server/files/remove.ts), the one way a file is removed: DELETE, a
 * type refused at complete, a failed sign's take-back and a `deleteAt` that came all go
 * through it. Asked directly and through `DELETE /v1/files/:id`.
 */
describe('removing a file', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  it('is never served again from the CDN memory cache, even by reads racing the removal', async () => {
    const ctx = t.service.context;
    const projectId = t.service.defaultProject.project.id;
    const before = await t.stored();
    const file = await upload(t, new Uint8Array(64 * 1024).fill(7));
    await servedFromMemory(t, file);
    // Reads overlapping the removal: each is the whole file or 404, never anything else.
    const racing = Array.from({ length: 20 }, async () => {
      const served = await fetch(publicUrlOf(file));
      const body = await served.arrayBuffer();
      return served.status === 200 ? body.byteLength : served.status;
    });
    const row = await removeFile(ctx, projectId, file.id);
    for (const outcome of await Promise.all(racing)) assert.ok([64 * 1024, 404].includes(outcome));
    assert.equal(row?.id, file.id);
    assert.equal(ctx.servingCache.get(file.id), undefined, 'forgotten by the CDN');
    for (let read = 0; read < 3; read++) {
      assert.equal((await fetch(publicUrlOf(file))).status, 404);
    }
    assert.equal(ctx.servingCache.get(file.id), undefined, 'a 404 does not cache it again');
    await expectError(await t.api(`/v1/files/${file.id}`), 404, 'not_found');
    assert.deepEqual(await t.stored(), before, 'its bytes are gone');
    assert.deepEqual(await ctx.db.listDeletedUnpurged(10), [], 'nothing left for the sweeper');
    assert.equal(await removeFile(ctx, projectId, file.id), null, 'removed once');
  });

  it('through DELETE /v1/files/:id: 204, then 404 from the API and the CDN, the cache forgotten', async () => {
    const file = await upload(t, new Uint8Array(32 * 1024).fill(8));
    await servedFromMemory(t, file);
    assert.equal((await t.api(`/v1/files/${file.id}`, { method: 'DELETE' })).status, 204);
    assert.equal(t.service.context.servingCache.get(file.id), undefined);
    assert.equal((await fetch(publicUrlOf(file))).status, 404);
    await expectError(await t.api(`/v1/files/${file.id}`, { method: 'DELETE' }), 404, 'not_found');
  });

  it('records the event it is given, once, with the removal', async () => {
    const ctx = t.service.context;
    const projectId = t.service.defaultProject.project.id;
    const file = await upload(t, new Uint8Array(1024).fill(9));
    const event = fileEvent(ctx, 'file.deleted', 'expired');
    assert.ok(await removeFile(ctx, projectId, file.id, { event }));
    assert.equal(await removeFile(ctx, projectId, file.id, { event }), null);
    const { events } = await json<EventListResponse>(await t.api('/v1/events?limit=100'));
    const mine = events.filter(
      (recorded) => recorded.type === 'file.deleted' && recorded.data.id === file.id,
    );
    assert.deepEqual(
      mine.map((recorded) => [recorded.id, recorded.type]),
      [[event.id, 'file.deleted']],
    );
  });
});

/**
 * On a disk 100% full (a 24 MiB tmpfs the test mounts and fills, as
 * test/server/faults/disk-full.test.ts does): removing is how space is freed, so it works,
 * by the domain function and through HTTP, and the space comes back.
 */
describe('removing a file on a full disk', {
  skip: isRoot ? false : 'needs root to mount a tmpfs to fill',
}, () => {
  let disk: Awaited<ReturnType<typeof serviceOnSmallDisk>>;
  let mount: string;
  let t: TestService;
  before(async () => {
    disk = await serviceOnSmallDisk(24);
    ({ t, mount } = disk);
  });
  after(() => disk?.close());

  const full = () => assert.ok(isFull(mount), 'the disk is 100% full');

  it('removes, frees its bytes and forgets it in the CDN, directly and through DELETE', async () => {
    const ctx = t.service.context;
    const projectId = t.service.defaultProject.project.id;
    const first = await upload(t, new Uint8Array(4 * MiB).fill(1));
    const second = await upload(t, new Uint8Array(4 * MiB).fill(2));
    await servedFromMemory(t, first);
    await servedFromMemory(t, second);
    const bytesOf = async (id: string) => (await t.stored()).filter((path) => path.includes(id));

    let ballast = await fill(mount);
    full();
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: 'tiny' }),
      507,
      'insufficient_storage',
    );
    // The domain function: marking commits with the reserve given up, the bytes go.
    assert.equal((await removeFile(ctx, projectId, first.id))?.id, first.id);
    assert.equal(ctx.servingCache.get(first.id), undefined);
    assert.equal((await fetch(publicUrlOf(first))).status, 404);
    assert.deepEqual(await bytesOf(first.id), []);

    // Room again: the sweep makes the reserve again; then full again, and through HTTP.
    await rm(ballast);
    await sweep(ctx);
    ballast = await fill(mount);
    full();
    assert.equal((await t.api(`/v1/files/${second.id}`, { method: 'DELETE' })).status, 204);
    assert.equal(ctx.servingCache.get(second.id), undefined);
    assert.equal((await fetch(publicUrlOf(second))).status, 404);
    await expectError(await t.api(`/v1/files/${second.id}`), 404, 'not_found');
    assert.deepEqual(await bytesOf(second.id), []);

    await rm(ballast);
    const again = await upload(t, new Uint8Array(MiB).fill(5));
    assert.equal((await (await fetch(publicUrlOf(again))).arrayBuffer()).byteLength, MiB);
  });
});
