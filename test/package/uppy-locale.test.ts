import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { uppyCoreStringsInUse } from '../../vite.config.js';
import { scriptTagMetafile } from '../bench/support.js';

/**
 * The script-tag build keeps only the strings of Uppy's locale that its core code asks for
 * (vite.config.ts). Here the question is asked the other way round: every module of Uppy
 * that really ends up in the bundle, and every string it translates.
 */
describe("the script-tag bundle's Uppy locale", () => {
  it('keeps every string the bundled Uppy modules translate', async () => {
    const metafile = await scriptTagMetafile();
    const bundled = Object.keys(metafile.inputs).filter(
      (path) => path.includes('node_modules/@uppy/') && path.endsWith('.js'),
    );
    assert.ok(bundled.some((path) => path.endsWith('@uppy/core/lib/Uppy.js')));

    const coreLib = dirname(bundled.find((path) => path.endsWith('core/lib/Uppy.js')) ?? '');
    // By path: the package's exports map does not offer its locale file.
    const { default: locale } = (await import(pathToFileURL(join(coreLib, 'locale.js')).href)) as {
      default: { strings: Record<string, unknown> };
    };
    const translated = new Set<string>();
    for (const path of bundled) {
      const source = await readFile(path, 'utf8');
      for (const [, key] of source.matchAll(/(?:i18n|i18nArray|getI18n\(\))\(\s*['"`](\w+)['"`]/g))
        if (key && key in locale.strings) translated.add(key);
    }
    assert.ok(
      translated.has('noDuplicates') && translated.has('exceedsSize'),
      [...translated].join(),
    );

    const kept = uppyCoreStringsInUse(coreLib);
    const missing = [...translated].filter((key) => !kept.has(key));
    assert.deepEqual(missing, []);
    // And the trimming is real: most of the locale (provider views, S3, Google Picker) goes.
    const keptOfLocale = Object.keys(locale.strings).filter((key) => kept.has(key));
    assert.ok(
      keptOfLocale.length < Object.keys(locale.strings).length / 2,
      String(keptOfLocale.length),
    );
  });
});
