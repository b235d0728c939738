import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import {
  EDITOR_CHUNK_BUDGET_BYTES,
  FIRST_LOAD_BUDGET_BYTES,
  LOCALE_BUDGET_BYTES,
  localeSizes,
  ON_USE_CHUNK_BUDGET_BYTES,
  ONE_FILE,
  ONE_FILE_BUDGET_BYTES,
  oneFileSize,
  onUseBudget,
  scriptTagFiles,
  scriptTagSizes,
  TOTAL_BUDGET_BYTES,
} from '../bench/support.js';

const kib = (bytes: number) => (bytes / 1024).toFixed(2);

/** The script-tag bundle as `npm run build` just wrote it. */
describe('the script-tag bundle (dist/filehost.js and its upload engine)', () => {
  it(`stays within its budgets: first load ${FIRST_LOAD_BUDGET_BYTES / 1024} KiB, with the engine ${(TOTAL_BUDGET_BYTES / 1024).toFixed(2)} KiB, each on-use chunk ${ON_USE_CHUNK_BUDGET_BYTES / 1024} KiB gzipped (the image editor ${EDITOR_CHUNK_BUDGET_BYTES / 1024} KiB)`, async () => {
    const { firstLoad, total, features, files } = await scriptTagSizes();
    console.log(
      `first load (filehost.js) ${kib(firstLoad)} KiB, with the engine ${kib(total)} KiB gzipped: ${files.map((f) => `${f.name} ${kib(f.gzipped)}`).join(', ')}`,
    );
    assert.deepEqual(
      features.map((f) => f.name.replace(/-[\w-]{8}\.js$/, '')),
      [
        // Small files added together (the batch upload).
        'filehost-batch-upload',
        'filehost-camera',
        // The English words of the service's answers, with the first of them.
        'filehost-en-service',
        'filehost-folder-reader',
        // The image editor's loader (the rows of images waiting), once an image is added
        // with `image-editor`; the editor itself (the dialog and Cropper.js), once it opens.
        'filehost-held-images',
        'filehost-image-editor',
        'filehost-image-shrink',
        'filehost-link-source',
        'filehost-md5',
        'filehost-multipart-sender',
        // <file-list>'s placeholders (the ThumbHash decoder), once a list has one to draw.
        'filehost-placeholders',
        // The memory of uploads across reloads, once an upload runs a second or the
        // browser holds one remembered before.
        'filehost-remembered-uploads',
        // The token client (the Link source reaches it through the engine, so nothing of it
        // is split into a part of its own).
        'filehost-upload-tokens',
      ],
      "filehost.js, the upload engine, and on use only: five features, the image editor (its loader and itself), the Link source, the list's placeholders, MD5, the token client, the words of the service's answers and the memory of uploads across reloads",
    );
    assert.ok(
      firstLoad <= FIRST_LOAD_BUDGET_BYTES,
      `first load ${kib(firstLoad)} KiB is over budget`,
    );
    assert.ok(total <= TOTAL_BUDGET_BYTES, `with the engine ${kib(total)} KiB is over budget`);
    for (const feature of features)
      assert.ok(
        feature.gzipped <= onUseBudget(feature.name),
        `${feature.name} ${kib(feature.gzipped)} KiB is over budget`,
      );
    // Uppy is in the engine, not in what the page must load first.
    const entry = await readFile('dist/filehost.js', 'utf8');
    assert.ok(!entry.includes('addPreProcessor'), 'no Uppy in filehost.js');
    // The part sender is not in the engine: a page of small files never loads it.
    const engine = files.find((f) => f.name.startsWith('filehost-upload-engine-'));
    const engineCode = await readFile(`dist/${engine?.name}`, 'utf8');
    assert.ok(!engineCode.includes('-per-second'), 'no speed wording in the engine');
  });

  it(`ships each language as its own file of at most ${LOCALE_BUDGET_BYTES / 1024} KiB gzipped, which filehost.js does not import`, async () => {
    const locales = await localeSizes();
    const { SHIPPED_LOCALES } = await import('../../src/locales/index.js');
    assert.deepEqual(
      locales.map((locale) => locale.name),
      SHIPPED_LOCALES.split(' ')
        .sort()
        .map((tag) => `locales/${tag}.js`),
    );
    for (const locale of locales)
      assert.ok(
        locale.gzipped <= LOCALE_BUDGET_BYTES,
        `${locale.name} ${kib(locale.gzipped)} KiB is over budget`,
      );
    const entry = await readFile('dist/filehost.js', 'utf8');
    // German words are not in the first load: only the page's language is fetched, on use.
    assert.ok(!entry.includes('Dateien auswählen'), 'no German in filehost.js');
  });

  it(`ships ${ONE_FILE}, everything in one file of at most ${ONE_FILE_BUDGET_BYTES / 1024} KiB gzipped, importing no chunk`, async () => {
    const size = await oneFileSize();
    console.log(`${ONE_FILE} ${kib(size)} KiB gzipped`);
    assert.ok(size <= ONE_FILE_BUDGET_BYTES, `${ONE_FILE} ${kib(size)} KiB is over budget`);
    const code = await readFile(`dist/${ONE_FILE}`, 'utf8');
    // The engine (Uppy) and MD5 (hash-wasm) are in it; no chunk is imported from beside it
    // (a language is: `./locales/<tag>.js`, by a specifier in a variable).
    for (const text of ['addPreProcessor', 'Using Core v']) assert.ok(code.includes(text), text);
    assert.doesNotMatch(code, /["'`]\.\/filehost-[\w-]+\.js["'`]/, 'no chunk imported');
    assert.equal(code.match(/\bimport\(/g)?.length, 1, 'one import(): the language');
  });

  it('carries Uppy as published: its texts, its package version, its log calls', async () => {
    const [engine] = (await scriptTagFiles()).filter((name) =>
      name.startsWith('filehost-upload-engine-'),
    );
    const code = await readFile(`dist/${engine}`, 'utf8');
    // Core's default locale and its log lines, which the build once removed, are there.
    for (const text of ['Cannot add the duplicate file', 'You can only upload', 'Using Core v'])
      assert.ok(code.includes(text), text);
    const { version } = JSON.parse(
      await readFile('node_modules/@uppy/core/package.json', 'utf8'),
    ) as { version: string };
    assert.ok(code.includes(version), `@uppy/core ${version}`);
  });
});
