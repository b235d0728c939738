// @also-on-node-24: the built package's entry points, as a Node 24 app imports them (npm run test:node24)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import ts from 'typescript';

/**
 * The package as `npm install filehost` users import it (built: run `npm run build` first;
 * `npm run test:e2e` does). Imports go through the package's own `exports`.
 */
/** The root manifest: the widget package `filehost`. */
function manifestOf(): {
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  scripts: Record<string, string>;
} {
  return JSON.parse(readFileSync('package.json', 'utf8'));
}

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

  it('filehost/api gives the contract the service imports (its types, codes, limits, routes, name rules)', async () => {
    const api = await load('filehost/api');
    assert.equal(api.API_ERROR_STATUS && typeof api.API_ERROR_STATUS, 'object');
    assert.equal(typeof api.cleanName, 'function');
    assert.equal(typeof api.routes, 'object');
    assert.equal(typeof api.MIN_PART_SIZE, 'number');
  });

  it('has no filehost/server: the service is @filehost/server, built to dist/server', async () => {
    await assert.rejects(load('filehost/server'), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
    const server = JSON.parse(await readFile('dist/server/package.json', 'utf8')) as {
      name: string;
      bin: Record<string, string>;
      dependencies: Record<string, string>;
    };
    assert.equal(server.name, '@filehost/server');
    assert.deepEqual(Object.keys(server.bin), ['filehost-server']);
    assert.equal(server.dependencies.filehost, manifestOf().version);
    // The contract comes from filehost, not from a copy.
    await assert.rejects(readFile('dist/server/lib/api/types.js'));
    const routes = await readFile('dist/server/lib/api/routes/list-files.js', 'utf8');
    assert.doesNotMatch(routes, /from '(\.\.\/)+api\//);
  });

  it('depends on what browser code imports, nothing of the service; compiles nothing on install', async () => {
    const { dependencies, peerDependencies, scripts } = manifestOf();
    assert.deepEqual(Object.keys(dependencies).sort(), [
      '@uppy/core',
      '@uppy/xhr-upload',
      // The image editor's cropper (an on-use chunk, fetched when an editor opens).
      'cropperjs',
      'hash-wasm',
      'idb-keyval',
      'lit',
      // <file-list>'s placeholders decode ThumbHash (an on-use chunk of the script tag).
      'thumbhash',
    ]);
    for (const script of ['install', 'preinstall', 'postinstall', 'prepare'])
      assert.equal(scripts[script], undefined, script);
    // Every package the shipped modules import is a dependency or a peer (React, Vue, and
    // standardwebhooks for filehost/client/node's verifyWebhook).
    const imported = new Set<string>();
    for (const file of await readdir('dist/lib', { recursive: true })) {
      if (!file.endsWith('.js')) continue;
      const code = await readFile(`dist/lib/${file}`, 'utf8');
      // TypeScript's own scanner: comments and strings that mention `import` are not imports.
      for (const { fileName: spec } of ts.preProcessFile(code, true, true).importedFiles) {
        if (spec.startsWith('node:') || spec.startsWith('.')) continue;
        imported.add(
          spec.startsWith('@')
            ? spec.split('/').slice(0, 2).join('/')
            : (spec.split('/')[0] ?? spec),
        );
      }
    }
    const declared = new Set([...Object.keys(dependencies), ...Object.keys(peerDependencies)]);
    assert.deepEqual(
      [...imported].filter((name) => !declared.has(name)),
      [],
    );
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
