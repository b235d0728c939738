import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { UploadResponse } from '../../../src/api/types.js';
import { fill, isFull, serviceOnSmallDisk } from '../../helpers/full-disk.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import { expectError, json, type TestService } from '../../helpers/service.js';
import { isRoot } from '../../helpers/system.js';

const MiB = 1024 * 1024;

/**
 * A full disk, for real: the data directory on a 24 MiB tmpfs that the test mounts (root
 * only; CI runs as root) and fills. The service's fault is never the client's (507, not
 * 4xx or 500), nothing is half kept, a delete still frees space, and uploads work again once
 * there is room, with no restart.
 */
describe('a full disk', { skip: isRoot ? false : 'needs root to mount a tmpfs to fill' }, () => {
  let disk: Awaited<ReturnType<typeof serviceOnSmallDisk>>;
  let mount: string;
  let t: TestService;
  before(async () => {
    disk = await serviceOnSmallDisk(24);
    ({ t, mount } = disk);
  });
  after(() => disk?.close());

  it('answers 507 with nothing kept, deletes at 100% full, and takes uploads again once freed', async () => {
    const kept = await json<UploadResponse>(
      await t.api('/v1/upload', { method: 'POST', body: new Uint8Array(4 * MiB).fill(3) }),
      201,
    );
    const before = await t.stored();
    // Bigger than what is left: the bytes run out of room mid-body.
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: new Uint8Array(30 * MiB).fill(4) }),
      507,
      'insufficient_storage',
    );
    assert.deepEqual(await t.stored(), before, 'nothing of the refused upload is kept');

    const ballast = await fill(mount);
    assert.ok(isFull(mount), 'the disk is 100% full');
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: 'tiny' }),
      507,
      'insufficient_storage',
    );
    await expectError(await t.sign({ name: 'a', size: 10 }), 507, 'insufficient_storage');
    // Deleting is how space is freed: it works on the full disk.
    assert.equal((await t.api(`/v1/files/${kept.id}`, { method: 'DELETE' })).status, 204);
    await expectError(await t.api(`/v1/files/${kept.id}`), 404, 'not_found');

    await rm(ballast);
    const again = await json<UploadResponse>(
      await t.api('/v1/upload', { method: 'POST', body: new Uint8Array(MiB).fill(5) }),
      201,
    );
    const served = await fetch(publicUrlOf(again));
    assert.equal((await served.arrayBuffer()).byteLength, MiB);
  });
});
