import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from './service.js';

/**
 * A small disk of its own for a test to fill, for real: a tmpfs of `sizeMiB` mounted on a
 * fresh folder (root only; CI runs as root). `unmount` takes it away with the folder.
 */
export async function mountSmallDisk(
  sizeMiB: number,
): Promise<{ path: string; unmount: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'filehost-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', path]);
  return {
    path,
    async unmount() {
      execFileSync('umount', [path]);
      await rm(path, { recursive: true, force: true });
    },
  };
}

/** Fills what is left of the disk under `path` with one file; answers its path. */
export async function fill(path: string): Promise<string> {
  const ballast = join(path, 'ballast');
  const handle = await open(ballast, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let at = 0; ; at += chunk.length) await handle.write(chunk, 0, chunk.length, at);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    await handle.close();
  }
  return ballast;
}

/** Whether the disk under `path` has no byte left, as `df` sees it. */
export function isFull(path: string): boolean {
  return /\n\s*0\s*$/.test(execFileSync('df', ['--output=avail', path], { encoding: 'utf8' }));
}

/**
 * A test service whose data directory is on a small disk of its own (`mountSmallDisk`), to
 * fill; `close` stops it and takes the disk away.
 */
export async function serviceOnSmallDisk(
  sizeMiB: number,
): Promise<{ t: TestService; mount: string; close: () => Promise<void> }> {
  const disk = await mountSmallDisk(sizeMiB);
  try {
    const t = await startTestService({ FILEHOST_DATA_DIR: join(disk.path, 'data') });
    return {
      t,
      mount: disk.path,
      async close() {
        await t.close();
        await disk.unmount();
      },
    };
  } catch (error) {
    await disk.unmount();
    throw error;
  }
}
