import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';

/**
 * The package as `npm install filehost` users import it (built: run `npm run build` first;
 * `npm run test:e2e` does). Imports go through the package's own `exports`.
 */
/** Imported by name at run time: the built package may not exist when the type check runs. */
const load = (specifier: string): Promise<Record<string, unknown>> => import(specifier);

describe('the npm package entry points', () => {
  it('filehost/elements gives the classes without registering them; filehost registers both', async () => {
    const registry = (globalThis as { customElements?: CustomElementRegistry }).customElements;
    const elements = await load('filehost/elements');
    assert.equal(typeof elements.FileUploaderElement, 'function');
    assert.equal(typeof elements.FileListElement, 'function');
    if (registry) assert.equal(registry.get('file-uploader'), undefined);
    const main = await load('filehost');
    assert.equal(main.FileUploaderElement, elements.FileUploaderElement);
    if (registry) {
      assert.equal(registry.get('file-uploader'), elements.FileUploaderElement);
      assert.equal(registry.get('file-list'), elements.FileListElement);
    }
  });

  it('filehost/client and filehost/client/node give the typed client', async () => {
    const client = await load('filehost/client');
    const node = await load('filehost/client/node');
    assert.equal(typeof client.FilehostClient, 'function');
    assert.equal(typeof client.ApiError, 'function');
    assert.equal(typeof node.fileSource, 'function');
  });

  it('filehost/server starts the service', async () => {
    const server = await load('filehost/server');
    assert.equal(typeof server.startService, 'function');
    assert.equal(typeof server.configFromEnv, 'function');
  });

  it('filehost/openapi.json gives the OpenAPI description of the API', async () => {
    const loadJson = (specifier: string): Promise<{ default: Record<string, unknown> }> =>
      import(specifier, { with: { type: 'json' } });
    const { default: document } = await loadJson('filehost/openapi.json');
    assert.match(String(document.openapi), /^3\.1\.\d+$/);
    assert.ok('/v1/upload' in (document.paths as Record<string, unknown>));
  });

  it('filehost/locales/<tag> gives a translation to register', async () => {
    const { default: de } = (await load('filehost/locales/de')) as {
      default: { $code: string; uploader: { browse: string } };
    };
    assert.equal(de.$code, 'de');
    assert.equal(de.uploader.browse, 'Dateien auswählen');
  });

  it('ships types for every entry, the manifest, and the script-tag bundle', async () => {
    const manifest = JSON.parse(await readFile('package.json', 'utf8')) as {
      exports: Record<string, string | { types: string; default: string }>;
      customElements: string;
    };
    // A pattern entry (`./locales/*`) is checked for each file it stands for.
    const locales = (await readdir('src/locales'))
      .filter((name) => name.endsWith('.ts') && name !== 'index.ts')
      .map((name) => name.replace(/\.ts$/, ''));
    assert.ok(locales.length >= 14, `${locales.length} locales`);
    for (const [entry, target] of Object.entries(manifest.exports)) {
      const files = typeof target === 'string' ? [target] : [target.types, target.default];
      const expanded = entry.includes('*')
        ? files.flatMap((file) => locales.map((tag) => file.replace('*', tag)))
        : files;
      for (const file of expanded) {
        await readFile(file).catch(() => assert.fail(`${entry}: ${file} is missing`));
      }
    }
    assert.equal(manifest.customElements, 'custom-elements.json');
  });
});
