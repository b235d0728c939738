import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { npm } from '../helpers/packs.js';

/**
 * What a user gets (#53 point 5): the widget's tarball holds what an app imports and what a
 * page loads, nothing else (no sources but the OpenAPI document, no source maps, nothing of
 * the service or the packs), and docs/development.md states its size truly; the script-tag
 * folder the README says to copy (`dist/script-tag/`) holds exactly the files a page loads.
 * Run on the build (`npm run test:e2e` builds first).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types: string; default: string }>;
};

/** What belongs in the tarball, each with why. */
const SHIPPED: [RegExp, string][] = [
  [/^(package\.json|README\.md)$/, 'the manifest and the front door'],
  [/^custom-elements\.json$/, "editors' and frameworks' description of the elements"],
  [/^src\/api\/openapi\.json$/, 'filehost/openapi.json'],
  [/^dist\/lib\/[\w/.-]+\.(js|d\.ts)$/, 'the modules and types an app imports'],
  [/^dist\/script-tag\/(locales\/)?[\w.-]+\.js$/, 'the files a page loads by a script tag'],
];

async function packedFiles(): Promise<{ files: string[]; size: number; unpackedSize: number }> {
  const { stdout } = await npm(ROOT, ['pack', '--dry-run', '--json']);
  const [packed] = JSON.parse(stdout) as {
    files: { path: string }[];
    size: number;
    unpackedSize: number;
  }[];
  assert.ok(packed, 'npm pack listed nothing');
  return { ...packed, files: packed.files.map((file) => file.path) };
}

/** The relative module URLs a built file names (`./filehost-engine-….js`, `../x.js`). */
function relativeImports(code: string): string[] {
  return [...code.matchAll(/["'`](\.{1,2}\/[\w./-]+\.js)["'`]/g)].map((match) => match[1] ?? '');
}

describe('the widget tarball and the script-tag folder', () => {
  it('the tarball holds only what an app imports and a page loads', async () => {
    const { files } = await packedFiles();
    const unexpected = files.filter((file) => !SHIPPED.some(([pattern]) => pattern.test(file)));
    assert.deepEqual(unexpected, [], 'files a user does not need');
    for (const [pattern, why] of SHIPPED) {
      assert.ok(
        files.some((file) => pattern.test(file)),
        `nothing for ${why}`,
      );
    }
  });

  it("every entry of the package's exports, and every module they import, is in it", async () => {
    const files = new Set((await packedFiles()).files);
    const locales = (await readdir(join(ROOT, 'src/locales')))
      .filter((name) => name.endsWith('.ts') && name !== 'index.ts')
      .map((name) => name.replace(/\.ts$/, ''));
    const targets = Object.entries(manifest.exports).flatMap(([entry, target]) => {
      const paths = typeof target === 'string' ? [target] : [target.types, target.default];
      return entry.includes('*')
        ? paths.flatMap((path) => locales.map((tag) => path.replace('*', tag)))
        : paths;
    });
    const missing = targets
      .map((target) => normalize(target))
      .filter((target) => !files.has(target));
    assert.deepEqual(missing, [], 'exported, not packed');
    const unresolved: string[] = [];
    for (const file of files) {
      if (!file.endsWith('.js')) continue;
      for (const specifier of relativeImports(await readFile(join(ROOT, file), 'utf8'))) {
        const target = normalize(join(dirname(file), specifier));
        if (!files.has(target)) unresolved.push(`${file} -> ${specifier}`);
      }
    }
    assert.deepEqual(unresolved, [], 'imported, not packed');
  });

  it('both packages declare the Node versions they are tested on, as the README says', async () => {
    const engines = (file: string) =>
      (JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as { engines: { node: string } }).engines
        .node;
    // filehost: Node 20, and its Node side on Node 24 (npm run test:node24); the service:
    // Node 20 only (its native SQLite driver is not built for Node 24 here).
    assert.equal(engines('package.json'), '>=20.19');
    assert.equal(engines('dist/server/package.json'), '^20.19.0');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    assert.match(readme, /its `engines` say `>=20\.19`/);
    assert.match(
      readme,
      /`@filehost\/server` is tested on Node 20 only, so its `engines` say `\^20\.19\.0`/,
    );
  });

  it('docs/development.md states the packed size within 15%', async () => {
    const { size, unpackedSize } = await packedFiles();
    const text = readFileSync(join(ROOT, 'docs/development.md'), 'utf8').replace(/\s+/g, ' ');
    const stated = /`filehost` packs to about (\d+) KB \(([\d.]+) MB unpacked/.exec(text);
    assert.ok(stated, 'docs/development.md says how big the widget tarball is');
    const near = (doc: number, actual: number) => Math.abs(doc - actual) / actual < 0.15;
    assert.ok(
      near(Number(stated[1]) * 1000, size),
      `packed ${size} B, the docs say ${stated[1]} KB`,
    );
    assert.ok(
      near(Number(stated[2]) * 1e6, unpackedSize),
      `unpacked ${unpackedSize} B, the docs say ${stated[2]} MB`,
    );
  });

  it('dist/script-tag/ holds exactly what a page loads: filehost.js and what it imports, the bundle, the languages', async () => {
    const folder = join(ROOT, 'dist/script-tag');
    const present = (await readdir(folder, { recursive: true }))
      .map(String)
      .filter((name) => name !== 'locales')
      .sort();
    assert.deepEqual(
      present.filter((name) => !/^(locales\/)?[\w.-]+\.js$/.test(name)),
      [],
      'only scripts',
    );
    // What filehost.js reaches, import by import.
    const reached = new Set<string>();
    const queue = ['filehost.js'];
    for (let name = queue.shift(); name; name = queue.shift()) {
      if (reached.has(name)) continue;
      reached.add(name);
      const code = await readFile(join(folder, name), 'utf8').catch(() =>
        assert.fail(`${name} is imported but not in dist/script-tag/`),
      );
      assert.doesNotMatch(code, /sourceMappingURL/, `${name} names a source map`);
      for (const specifier of relativeImports(code)) {
        if (!specifier.startsWith('./locales/')) queue.push(normalize(specifier));
      }
    }
    const locales = (await readdir(join(ROOT, 'src/locales')))
      .filter((name) => name.endsWith('.ts') && name !== 'index.ts' && name !== 'en.ts')
      .map((name) => `locales/${name.replace(/\.ts$/, '.js')}`);
    assert.ok(locales.length >= 14, `${locales.length} languages`);
    assert.deepEqual(present, [...reached, 'filehost.bundle.js', ...locales].sort());
  });
});
