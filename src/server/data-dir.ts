import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One data directory belongs to one running service: the blob store coordinates part
 * writes in memory and startup recovery removes unfinished uploads, both of which assume
 * no other process is serving the same files. A stale lock (its process is gone) is taken over.
 */
export async function lockDataDir(dir: string): Promise<{ release: () => Promise<void> }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, 'service.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return { release: () => rm(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `The data directory ${dir} is in use by another filehost service (pid ${holder}).`,
        );
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`Could not lock the data directory ${dir}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A secret generated once and kept in the data directory, readable only by its owner. */
export async function loadOrCreateSecret(path: string, bytes = 32): Promise<Buffer> {
  try {
    const existing = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64url');
    if (existing.length >= bytes) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(bytes);
  await writeFile(path, `${secret.toString('base64url')}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return secret;
}

export async function readJsonFile<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Written with owner-only permissions: it holds keys. */
export async function writePrivateJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
}
