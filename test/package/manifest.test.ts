import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

describe('custom-elements.json', () => {
  it('is what the analyzer makes of the sources today (run `npm run manifest` after changing an element)', async () => {
    // The analyzer takes --outdir relative to the working directory.
    const dir = await mkdtemp('.manifest-check-');
    try {
      await run(process.execPath, [
        'node_modules/@custom-elements-manifest/analyzer/cem.js',
        'analyze',
        '--outdir',
        dir,
      ]);
      const fresh = JSON.parse(await readFile(join(dir, 'custom-elements.json'), 'utf8'));
      const committed = JSON.parse(await readFile('custom-elements.json', 'utf8'));
      assert.deepEqual(committed, fresh);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('describes both elements with their attributes, events, parts and custom properties', async () => {
    const manifest = JSON.parse(await readFile('custom-elements.json', 'utf8')) as {
      modules: { declarations?: Record<string, unknown>[] }[];
    };
    const elements = manifest.modules
      .flatMap((module) => module.declarations ?? [])
      .filter((declaration) => declaration.customElement);
    const byTag = Object.fromEntries(elements.map((element) => [element.tagName, element]));
    const names = (tag: string, key: string) =>
      ((byTag[tag]?.[key] as { name: string }[] | undefined) ?? []).map((item) => item.name);
    assert.deepEqual(Object.keys(byTag).sort(), ['file-list', 'file-uploader']);
    assert.ok(names('file-uploader', 'attributes').includes('api-key'));
    assert.ok(names('file-uploader', 'events').includes('upload-success'));
    assert.ok(names('file-uploader', 'cssParts').includes('dropzone'));
    assert.ok(names('file-uploader', 'cssProperties').includes('--file-uploader-accent'));
    assert.ok(names('file-list', 'attributes').includes('page-size'));
    assert.ok(names('file-list', 'events').includes('file-select'));
    assert.ok(!names('file-list', 'attributes').some((name) => name.startsWith('_')));
  });
});
