// @also-on-node-24: pure JavaScript, no service (npm run test:node24)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { blobDigest } from '../../src/client/part-digest.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64');

/**
 * The browser's SHA-256 of a Blob (WebCrypto, as Node has it too), small Blobs asked for
 * together being read as one: each must still get the digest of its own bytes.
 */
describe('blobDigest (SHA-256 of Blobs, small ones read together)', () => {
  it('gives each Blob asked for at once the digest of its own bytes, whatever their sizes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.uint8Array({ maxLength: 2000 }),
            // Over the size read together: these go alone, beside the others.
            fc
              .integer({ min: 256 * 1024 - 1, max: 256 * 1024 + 1 })
              .map((size) => new Uint8Array(size).map((_, i) => (i * 31 + size) & 255)),
          ),
          { maxLength: 80 },
        ),
        async (contents) => {
          const digests = await Promise.all(
            contents.map((bytes) => blobDigest('sha256', new Blob([bytes]))),
          );
          assert.deepEqual(digests, contents.map(sha256));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('hashes the others when one of them cannot be read (its file changed on the disk)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'filehost-digest-'));
    try {
      const path = join(dir, 'changed.bin');
      await writeFile(path, 'before');
      const changed = await openAsBlob(path);
      await writeFile(path, 'after, and longer');
      const first = new Uint8Array([1, 2, 3]);
      const third = new Uint8Array(1000).fill(7);
      const results = await Promise.allSettled([
        blobDigest('sha256', new Blob([first])),
        blobDigest('sha256', changed),
        blobDigest('sha256', new Blob([third])),
      ]);
      assert.deepEqual(
        [results[0], results[2]].map((result) => result.status === 'fulfilled' && result.value),
        [first, third].map(sha256),
      );
      assert.equal(results[1]?.status, 'rejected');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
