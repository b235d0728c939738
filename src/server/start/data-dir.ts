import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { dataDirError, StartupError } from '../ground/startup-error.js';

/**
 * One data directory belongs to one running service: the blob store coordinates part
 * writes in memory and startup recovery removes unfinished uploads, both of which assume
 * no other process is serving the same files. The lock is an exclusive SQLite lock on
 * `service.lock` (an fcntl lock underneath), which the operating system drops the moment
 * its process dies, however it dies: a service killed with SIGKILL can be started again at
 * once, and a reused process id fools nothing (a pid in a file did both wrong).
 */
export async function lockDataDir(dir: string): Promise<{ release: () => Promise<void> }> {
  await prepareDataDir(dir);
  const path = join(dir, 'service.lock');
  const first = await readFile(path).catch(() => Buffer.alloc(0));
  // Before this lock, `service.lock` held a process id as text: no lock at all any more.
  if (/^\d+\s*$/.test(first.toString('latin1'))) await rm(path, { force: true });
  let lock: Database.Database;
  try {
    lock = new Database(path, { timeout: 0 });
  } catch (error) {
    throw dataDirError(dir, error);
  }
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock; in EXCLUSIVE locking mode it is then kept
    // until the connection closes. The pid is only for the message of the one refused.
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER)');
    lock.exec(`DELETE FROM holder; INSERT INTO holder VALUES (${process.pid})`);
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new StartupError(
        `The data directory ${dir} is in use by another filehost service. Stop it first, or set FILEHOST_DATA_DIR to another directory.`,
      );
    }
    throw dataDirError(dir, error);
  }
  return {
    release: async () => {
      lock.close();
    },
  };
}

/**
 * Makes sure the data directory can hold a service before anything is put in it: made if
 * missing (its parent must exist, so a mistyped path is not quietly created somewhere),
 * a directory, and writable with room to write, proven by writing, flushing and removing a
 * small file. Each failure is a StartupError naming the cause and FILEHOST_DATA_DIR.
 */
export async function prepareDataDir(dir: string): Promise<void> {
  const found = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw dataDirError(dir, error);
  });
  if (found && !found.isDirectory()) {
    throw new StartupError(
      `The data directory ${dir} is not a directory. Set FILEHOST_DATA_DIR to a directory (it is made if missing).`,
    );
  }
  if (!found) {
    const parent = dirname(resolve(dir));
    const parentFound = await stat(parent).catch(() => null);
    if (!parentFound?.isDirectory()) {
      throw new StartupError(
        `The data directory ${dir} does not exist, nor does ${parent} to make it in. Create it, or set FILEHOST_DATA_DIR to a directory that exists.`,
      );
    }
    await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw dataDirError(dir, error);
    });
  }
  const probe = join(dir, `.write-test-${process.pid}`);
  try {
    const handle = await open(probe, 'w', 0o600);
    try {
      await handle.write(Buffer.alloc(4096));
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw dataDirError(dir, error);
  } finally {
    await rm(probe, { force: true }).catch(() => {});
  }
  await makeOwnerOnly(dir);
}

/**
 * The data directory holds the database and the file of the default project's keys: only
 * its owner may enter it. One that already exists keeps the mode it had (0755 left the
 * database readable by every user of the machine), so it is made owner-only at each start,
 * or the start is refused when this user cannot.
 */
async function makeOwnerOnly(dir: string): Promise<void> {
  const { mode } = await stat(dir);
  if ((mode & 0o077) === 0) return;
  try {
    await chmod(dir, mode & 0o700);
  } catch {
    throw new StartupError(
      `The data directory ${dir} can be entered by other users (mode ${(mode & 0o777).toString(8)}) and this user cannot change that. Make it owner-only (chmod 700 ${dir}), or set FILEHOST_DATA_DIR to a directory of this user's.`,
    );
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
