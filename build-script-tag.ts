/**
 * A step of `npm run build`, after Vite's two builds: the folder a page author copies to
 * their site, `dist/script-tag/`, holding exactly what a page loads: `filehost.js`, the
 * chunks it imports from beside itself (`filehost-*.js`), the one-file
 * `filehost.bundle.js`, and the languages (`locales/*.js`). Not the source maps (they point
 * at sources the folder does not have, and would double what is copied), the compiled
 * modules for bundlers (`dist/lib/`), the service (`dist/server/`) or the packs.
 *
 * A copy, not Vite's own output folder: the benches read the maps beside `dist/filehost.js`
 * (test/bench/bundle-size.ts), and the tests serve `dist/` as it is built. The copies drop
 * their `sourceMappingURL` comment, so a browser's developer tools ask for no missing map.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const DIST = 'dist';
const OUT = join(DIST, 'script-tag');
const PAGE_FILE = /^filehost(\.bundle|-[\w-]+)?\.js$/;
const MAP_COMMENT = /\n?\/\/# sourceMappingURL=\S+\s*$/;

async function copyScript(from: string, to: string): Promise<void> {
  const code = await readFile(from, 'utf8');
  await writeFile(to, code.replace(MAP_COMMENT, '\n'));
}

async function main(): Promise<void> {
  await rm(OUT, { recursive: true, force: true });
  await mkdir(join(OUT, 'locales'), { recursive: true });
  const scripts = (await readdir(DIST)).filter((name) => PAGE_FILE.test(name));
  if (!scripts.includes('filehost.js') || !scripts.includes('filehost.bundle.js'))
    throw new Error('No dist/filehost.js or dist/filehost.bundle.js: run the Vite builds first.');
  for (const name of scripts) await copyScript(join(DIST, name), join(OUT, name));
  const locales = (await readdir(join(DIST, 'locales'))).filter((name) => name.endsWith('.js'));
  for (const name of locales)
    await copyScript(join(DIST, 'locales', name), join(OUT, 'locales', name));
  console.log(`${OUT}: ${scripts.length} scripts and ${locales.length} languages`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
