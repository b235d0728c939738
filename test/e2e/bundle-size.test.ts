import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { namesReadIn, uppyMembersStillReadIn, uppyUnusedMembers } from '../../vite.config.js';
import {
  FEATURE_BUDGET_BYTES,
  FIRST_LOAD_BUDGET_BYTES,
  LIBRARY_CHUNK_BUDGET_BYTES,
  scriptTagFiles,
  scriptTagSizes,
  TOTAL_BUDGET_BYTES,
} from '../bench/support.js';

const kib = (bytes: number) => (bytes / 1024).toFixed(2);

/** The script-tag bundle as `npm run build` just wrote it. */
describe('the script-tag bundle (dist/filehost.js and its upload engine)', () => {
  it(`stays within its budgets: first load ${FIRST_LOAD_BUDGET_BYTES / 1024} KiB, with the engine ${(TOTAL_BUDGET_BYTES / 1024).toFixed(2)} KiB, each feature ${FEATURE_BUDGET_BYTES / 1024} KiB gzipped`, async () => {
    const { firstLoad, total, features, files } = await scriptTagSizes();
    console.log(
      `first load (filehost.js) ${kib(firstLoad)} KiB, with the engine ${kib(total)} KiB gzipped: ${files.map((f) => `${f.name} ${kib(f.gzipped)}`).join(', ')}`,
    );
    assert.deepEqual(
      features.map((f) => f.name.replace(/-[\w-]{8}\.js$/, '')),
      ['filehost-camera', 'filehost-folder-reader', 'filehost-image-shrink', 'filehost-md5'],
      'filehost.js, the upload engine, three features and MD5 on use: nothing else',
    );
    assert.ok(
      firstLoad <= FIRST_LOAD_BUDGET_BYTES,
      `first load ${kib(firstLoad)} KiB is over budget`,
    );
    assert.ok(total <= TOTAL_BUDGET_BYTES, `with the engine ${kib(total)} KiB is over budget`);
    for (const feature of features) {
      const name = feature.name.replace(/-[\w-]{8}\.js$/, '');
      const budget = LIBRARY_CHUNK_BUDGET_BYTES[name] ?? FEATURE_BUDGET_BYTES;
      assert.ok(feature.gzipped <= budget, `${feature.name} is over budget`);
    }
    // Uppy is in the engine, not in what the page must load first.
    const entry = await readFile('dist/filehost.js', 'utf8');
    assert.ok(!namesReadIn(entry).properties.has('addPreProcessor'), 'no Uppy in filehost.js');
  });

  it("uses none of the Uppy members trimmed from it, and carries none of Uppy's texts", async () => {
    const code = (
      await Promise.all((await scriptTagFiles()).map((name) => readFile(`dist/${name}`, 'utf8')))
    ).join('\n');
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
