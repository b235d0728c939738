// @also-on-node-24: pure JavaScript, no service (npm run test:node24)
import assert from 'node:assert/strict';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fingerprintOf } from '../../src/client/fingerprint.js';
import { fileSource } from '../../src/client/node.js';
import { patternBytes } from '../helpers/bytes.js';

const MiB = 1024 * 1024;

/** The one fingerprint of both uploaders: what tells a file's bytes apart across runs. */
describe('fingerprintOf', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'filehost-fingerprint-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('is the same for the same bytes and identity, and differs when either end or the identity does', async () => {
    const bytes = patternBytes(5 * MiB, 1);
    const same = await fingerprintOf(new Blob([bytes]), ['a.bin', bytes.length]);
    assert.equal(await fingerprintOf(new Blob([bytes.slice()]), ['a.bin', bytes.length]), same);
    assert.notEqual(await fingerprintOf(new Blob([bytes]), ['b.bin', bytes.length]), same);
    for (const at of [0, bytes.length - 1]) {
      const changed = bytes.slice();
      changed[at] = (changed[at] ?? 0) ^ 0xff;
      assert.notEqual(
        await fingerprintOf(new Blob([changed]), ['a.bin', bytes.length]),
        same,
        `byte ${at}`,
      );
    }
    // Only the first and last MiB are read: a 10 GiB file costs 2 MiB of reading.
    const middle = bytes.slice();
    middle[2 * MiB] = (middle[2 * MiB] ?? 0) ^ 0xff;
    assert.equal(await fingerprintOf(new Blob([middle]), ['a.bin', bytes.length]), same);
  });

  it('is what fileSource answers in Node: its path, size and modification time with the file’s ends', async () => {
    const path = join(dir, 'f.bin');
    const bytes = patternBytes(3 * MiB, 2);
    await writeFile(path, bytes);
    const first = await (await fileSource(path)).fingerprint?.();
    assert.equal(await (await fileSource(path)).fingerprint?.(), first);
    const later = new Date(Date.now() + 10_000);
    await utimes(path, later, later);
    assert.notEqual(await (await fileSource(path)).fingerprint?.(), first, 'touched: another file');
    const small = join(dir, 'small.bin');
    await writeFile(small, patternBytes(10, 3));
    assert.match((await (await fileSource(small)).fingerprint?.()) ?? '', /small\.bin/);
  });
});
