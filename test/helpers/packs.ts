import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
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

const SQLITE = 'better-sqlite3';

/**
 * Offers the project at `project` the better-sqlite3 binary this repository's own
 * `npm install` compiled (`.ci/run` does that from source first, with the same compiler,
 * Node headers and version), as a local prebuild: a `.prebuild-installrc` in the project
 * names a folder holding the tarball that prebuild-install would otherwise download
 * (none is reachable for Node 20 here). The project's `npm install` still fetches the
 * package from the registry and runs its install script as a user's does; the script
 * unpacks this binary instead of compiling the same sources again for about two minutes.
 * Answers false (and offers nothing, so the install compiles) when the versions differ.
 */
export async function offerLocalSqliteBuild(project: string, wanted: string): Promise<boolean> {
  const installed = join('node_modules', SQLITE);
  const { version } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
    version: string;
  };
  const binary = 'build/Release/better_sqlite3.node';
  if (version !== wanted || !existsSync(join(installed, binary))) return false;
  const prebuilds = join(project, '.prebuilds');
  await mkdir(prebuilds);
  // prebuild-install's file name for this platform and Node ABI (its `getDownloadUrl`).
  const name = `${SQLITE}-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await run('tar', ['-czf', join(prebuilds, name), '-C', installed, binary]);
  await writeFile(join(project, '.prebuild-installrc'), `local-prebuilds=${resolve(prebuilds)}\n`);
  return true;
}
