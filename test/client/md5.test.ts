// @also-on-node-24: pure JavaScript, no service (npm run test:node24)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { md5Base64 } from '../../src/client/md5.js';

/**
 * The browser's MD5 (hash-wasm's WebAssembly, what a page sends S3 as `Content-MD5`) against
 * OpenSSL's, over any bytes cut into any chunks as a stream hands them over.
 */
describe('md5Base64 (browsers: S3 part checksums)', () => {
  it('equals node:crypto MD5 for any bytes, however the stream cuts them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 3000 }), { maxLength: 8 }),
        async (chunks) => {
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              for (const chunk of chunks) controller.enqueue(chunk);
              controller.close();
            },
          });
          const expected = createHash('md5');
          for (const chunk of chunks) expected.update(chunk);
          assert.equal(await md5Base64(stream), expected.digest('base64'));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('hashes on this thread where a page can start no worker (a document, no Worker: jsdom, say)', async () => {
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 13) & 255);
    const global = globalThis as { document?: unknown };
    assert.equal(typeof (globalThis as { Worker?: unknown }).Worker, 'undefined');
    global.document = {};
    try {
      assert.equal(
        await md5Base64(new Blob([bytes])),
        createHash('md5').update(bytes).digest('base64'),
      );
    } finally {
      delete global.document;
    }
  });

  it('hashes a Blob as it reads it (5 MiB, a part)', async () => {
    const bytes = new Uint8Array(5 * 1024 * 1024).map((_, i) => (i * 7) & 255);
    assert.equal(
      await md5Base64(new Blob([bytes])),
      createHash('md5').update(bytes).digest('base64'),
    );
  });
});
