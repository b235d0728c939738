import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { namesReadIn, uppyMembersStillReadIn, uppyUnusedMembers } from '../../vite.config.js';
import { BUNDLE_BUDGET_BYTES, gzippedBytes } from '../bench/support.js';

/** The script-tag bundle as `npm run build` just wrote it. */
describe('the script-tag bundle (dist/filehost.js)', () => {
  it(`stays within the budget: ${BUNDLE_BUDGET_BYTES / 1024} KiB gzipped`, async () => {
    const gzipped = gzippedBytes(await readFile('dist/filehost.js'));
    console.log(
      `dist/filehost.js: ${(gzipped / 1024).toFixed(2)} KiB gzipped; budget ${BUNDLE_BUDGET_BYTES / 1024}`,
    );
    assert.ok(
      gzipped <= BUNDLE_BUDGET_BYTES,
      `${(gzipped / 1024).toFixed(2)} KiB gzipped is over the ${BUNDLE_BUDGET_BYTES / 1024} KiB budget`,
    );
  });

  it("uses none of the Uppy members trimmed from it, and carries none of Uppy's texts", async () => {
    const code = await readFile('dist/filehost.js', 'utf8');
    assert.ok(Object.values(uppyUnusedMembers).flat().length > 20);
    assert.deepEqual(uppyMembersStillReadIn(code), []);
    const { properties, strings } = namesReadIn(code);
    assert.ok(![...strings].some((text) => text.startsWith('uppy test:')));
    // Core's locale goes whole (vite.config.ts); its words must not come back another way.
    for (const text of ['Cannot add the duplicate file', 'You can only upload', 'Missing required'])
      assert.ok(!code.includes(text), text);
    // And the trimming is the build's, not a bundle that lost Uppy: Uppy is there.
    assert.ok(properties.has('retryUpload') && properties.has('addPreProcessor'));
  });
});
