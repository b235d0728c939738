// @runs-alone: it times the tarball's install (a bench figure): 93 s beside the server package's install, 7 s alone
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addedPackages, npm, packBoth } from '../helpers/packs.js';

/**
 * The widget package as a front-end developer meets it (#43 point 1): `npm pack`'s tarball
 * installed into a fresh Vite + React 19 + TypeScript app in a temp dir (from the registry,
 * as `npm create vite` would set it up), then type-checked under `strict` and built. The
 * install of the tarball alone is timed and its packages counted (test/bench/README.md):
 * the goal is under 30 s and under 15 packages.
 */
const root = JSON.parse(readFileSync('package.json', 'utf8')) as {
  devDependencies: Record<string, string>;
};
/** The app's own packages, at the versions this repo develops against. */
const APP_PACKAGES = [
  'vite',
  'react',
  'react-dom',
  'typescript',
  '@types/react',
  '@types/react-dom',
];

const APP_TSX = `import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import 'filehost';
import type { FileRecord } from 'filehost/api';
import { FilehostClient } from 'filehost/client';
import type {} from 'filehost/react';

const endpoint = 'http://localhost:8787';
const apiKey = 'pk_live_0123456789abcdefghijklmnopqrstuv';

export const client = new FilehostClient({ endpoint, apiKey });

function App() {
  const [last, setLast] = useState<FileRecord | null>(null);
  const [square, setSquare] = useState(false);
  return (
    <main>
      <file-uploader id="up" endpoint={endpoint} api-key={apiKey} multiple metadata={{ user: 'u1' }}
        onupload-success={(event) => setLast(event.detail.record)} />
      <file-list for="up" endpoint={endpoint} api-key={apiKey} />
      <file-uploader endpoint={endpoint} api-key={apiKey} image-editor crop-aspect="1:1"
        onimage-edit={(event) => setSquare(event.detail.crop.width === event.detail.crop.height)} />
      <file-uploader endpoint={endpoint} api-key={apiKey} imageEditor={square} />
      <p>{last ? last.url : 'nothing yet'}</p>
    </main>
  );
}

const host = document.getElementById('root');
if (host) createRoot(host).render(<StrictMode><App /></StrictMode>);
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    module: 'ESNext',
    moduleResolution: 'bundler',
    jsx: 'react-jsx',
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
  },
  include: ['src'],
};

describe('the widget package in a fresh Vite + React 19 app', () => {
  let app: string;
  let tarball: string;
  let packs: string;
  before(async () => {
    ({ widget: tarball, dir: packs } = await packBoth());
    app = await mkdtemp(join(tmpdir(), 'filehost-react-app-'));
    await mkdir(join(app, 'src'));
    const dependencies = Object.fromEntries(
      APP_PACKAGES.map((name) => [name, root.devDependencies[name] as string]),
    );
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'react-app', private: true, type: 'module', dependencies }, null, 2),
    );
    await writeFile(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    await writeFile(
      join(app, 'index.html'),
      '<!doctype html><html><body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>',
    );
    await writeFile(join(app, 'src/main.tsx'), APP_TSX);
    // The app as `npm create vite` leaves it: its own packages installed first.
    await npm(app, ['install', '--no-audit', '--no-fund']);
  });
  after(async () => {
    await rm(app, { recursive: true, force: true });
    await rm(packs, { recursive: true, force: true });
  });

  it('installs the tarball without compiling anything, bringing browser packages only', async () => {
    const started = performance.now();
    const { stdout } = await npm(app, ['install', '--no-audit', '--no-fund', tarball]);
    const seconds = (performance.now() - started) / 1000;
    const added = addedPackages(stdout);
    console.log(`filehost tarball: ${seconds.toFixed(1)} s, ${added} packages added`);
    // None of the service's packages, nothing with a native build.
    const installed = await readdir(join(app, 'node_modules'));
    for (const name of ['fastify', 'better-sqlite3', 'sharp', 'pg', '@aws-sdk', 'pino'])
      assert.ok(!installed.includes(name), `${name} was installed`);
    assert.ok(installed.includes('lit'));
    // Well under the 176 packages and 227 s of the package that carried the service; the
    // goal (30 s, 15 packages) is recorded in test/bench/README.md beside what it takes.
    assert.ok(added <= 40, `${added} packages`);
    assert.ok(seconds < 120, `${seconds.toFixed(1)} s`);
  });

  it('type-checks under strict and builds with Vite', async () => {
    await npm(app, ['exec', '--', 'tsc', '-p', '.']);
    await npm(app, ['exec', '--', 'vite', 'build']);
    const assets = (await readdir(join(app, 'dist/assets'))).filter((name) => name.endsWith('.js'));
    const code = (
      await Promise.all(assets.map((name) => readFile(join(app, 'dist/assets', name), 'utf8')))
    ).join('\n');
    // The elements are in the app's bundle, registered under their tags, with Uppy.
    for (const text of ['"file-uploader"', '"file-list"', 'addPreProcessor'])
      assert.ok(code.includes(text) || code.includes(text.replaceAll('"', '`')), text);
  });
});
