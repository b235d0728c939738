import { type ExecFileSyncOptions, execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRoot } from './system.js';

/**
 * Tests that need a real server from Debian (Chromium, PostgreSQL, Ceph's RADOS Gateway,
 * nginx) install it themselves where they can: as root on a machine with apt (this
 * project's CI and dev machines). Anywhere else they say exactly what to install.
 */

function hasApt(): boolean {
  try {
    execFileSync('apt-get', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let updated = false;

/**
 * apt and dpkg hold one lock for the whole machine and fail at once when another install
 * has it; test files run side by side (see `run-node-tests.ts`), so their installs take
 * turns on a lock of ours (`flock`, util-linux: on every Debian).
 */
const APT_LOCK = join(tmpdir(), 'filehost-apt.lock');

/** `apt-get args`, waiting for any other install of this test run to finish first. */
export function aptGet(args: string[], options: ExecFileSyncOptions): void {
  execFileSync('flock', [APT_LOCK, 'apt-get', ...args], options);
}

/**
 * Makes `ready()` true by installing `packages` with apt when it is not already; answers
 * whether it is true in the end. Never throws for a missing package: the caller decides
 * whether that is a skip or a failure (see `unavailable`).
 */
export function ensureDebianPackages(
  packages: string[],
  ready: () => boolean,
  options: { noRecommends?: boolean; quiet?: boolean } = {},
): boolean {
  if (ready()) return true;
  if (!isRoot || !hasApt()) return false;
  if (!options.quiet) console.log(`Installing Debian packages: ${packages.join(' ')}…`);
  const stdio = options.quiet ? 'ignore' : 'inherit';
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    if (!updated) {
      aptGet(['update', '-qq'], { stdio, env });
      updated = true;
    }
    aptGet(
      [
        'install',
        '-y',
        '-qq',
        ...(options.noRecommends ? ['--no-install-recommends'] : []),
        ...packages,
      ],
      { stdio, env },
    );
  } catch (error) {
    if (!options.quiet) console.error(`apt-get failed: ${(error as Error).message}`);
    return false;
  }
  return ready();
}

/**
 * What a suite does when a real server it needs cannot be had: with `CI=true` that is a
 * failure (a suite that silently skips in CI proves nothing); elsewhere the suite is
 * skipped, and the message says what to install.
 */
export function unavailable(what: string, howToInstall: string): { skip: string } {
  const message = `${what} is not available: ${howToInstall}`;
  if (process.env.CI === 'true')
    throw new Error(`${message} (CI=true: a suite that cannot start fails)`);
  return { skip: message };
}
