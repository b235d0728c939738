import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * The two packages as `npm run pack` makes them (`filehost`, `@filehost/server`), packed from
 * the build (`npm run build` first; `npm run test:e2e` does) into a temp dir, and npm run in
 * a fresh project elsewhere, as a user runs it there: the registry is the only network.
 */
const run = promisify(execFile);

/**
 * The environment of an npm run in another project: this one's `npm_*` variables left out
 * (under `npm test`, `npm_config_local_prefix` would point the child at this repo).
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  );
  return { ...env, ...extra };
}

/** Runs npm in `cwd`; answers its output. Fails with npm's own words. */
export async function npm(
  cwd: string,
  args: string[],
  timeoutMs = 300_000,
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run('npm', args, {
      cwd,
      env: userEnv(),
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`);
  }
}

/**
 * Packs the widget (`filehost`) and the service (`@filehost/server`) into a temp dir (`dir`,
 * for the caller to remove).
 */
export async function packBoth(): Promise<{ widget: string; server: string; dir: string }> {
  if (!existsSync('dist/server/package.json'))
    throw new Error('No dist/server: run `npm run build` first.');
  const dir = await mkdtemp(join(tmpdir(), 'filehost-packs-'));
  const pack = async (what: string) => {
    const { stdout } = await npm('.', ['pack', what, '--pack-destination', dir, '--json']);
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    if (!packed) throw new Error(`npm pack ${what} made nothing`);
    return join(dir, packed.filename);
  };
  return { widget: await pack(resolve('.')), server: await pack(resolve('dist/server')), dir };
}

/** What `npm install` said it added: "added 26 packages in 9s". */
export function addedPackages(output: string): number {
  const match = /added (\d+) packages?/.exec(output);
  if (!match) throw new Error(`npm did not say what it added:\n${output}`);
  return Number(match[1]);
}
