import { chmod, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { isValidKey } from '../storage/local-disk/local-disk-store.js';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  type BackupManifest,
  BLOBS_DIR,
  DATABASE_FILE,
  KEPT_FILES,
  MANIFEST_FILE,
  type ManifestEntry,
} from './backup-manifest.js';
import { type CopiedBytes, copyVerified, eachAtOnce, hashFile, syncTree } from './copy-verified.js';
import { StagedDir } from './staged-dir.js';

/** What a running backup tells its terminal. */
export type BackupProgress =
  | { step: 'files-known'; done: number; total: number; bytes: number }
  | { step: 'database'; copiedPages: number; totalPages: number }
  | { step: 'files-new'; done: number; total: number; bytes: number };

export interface BackupOptions {
  /** The embedded deployment's data directory (`FILEHOST_DATA_DIR`). */
  dataDir: string;
  /** Where the backup goes: a directory that does not exist yet, or an empty one. */
  target: string;
  onProgress?: (progress: BackupProgress) => void;
  /** Stops the backup (Ctrl-C): what it wrote is removed, `target` never appears. */
  signal?: AbortSignal;
  /**
   * Tests only: called around the database copy (to change the service's files exactly
   * there), and once everything is copied, before the manifest is written.
   */
  beforeDatabaseCopy?: () => Promise<void>;
  afterDatabaseCopy?: () => Promise<void>;
  beforeManifest?: () => void;
}

/** A backup refused before it started, for a reason the operator can fix. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** Files copied at once: a few overlap their reads and writes. */
const COPIES_AT_ONCE = 4;
/** Database pages copied per step while no one writes (4 MiB of 4 KiB pages). */
const PAGES_PER_STEP = 1024;

/**
 * A consistent copy of an embedded data directory, made while the service runs.
 *
 * The order is what makes it consistent. The database is copied with SQLite's online
 * backup, which reads one snapshot (in WAL mode the service keeps writing meanwhile); the
 * backup holds the records of that instant, T, and the bytes of every file ready at T.
 * A delete marks the row deleted first and removes the bytes right after (`removeFile`),
 * and a ready file's bytes never change, so:
 *
 * 1. Before T, the bytes of every file ready now are copied. A file ready at T that was
 *    already ready here was not deleted in between (deletion is final), so its bytes were
 *    there to copy; bytes copied of a file deleted before T are dropped again after.
 * 2. T: the database is copied.
 * 3. After T, the bytes of files that became ready between 1 and T are copied. Only these
 *    can have been deleted after T and their bytes removed before this step reaches them.
 *    For each such file the live database is asked: deleted there, the copy records it as
 *    deleted too (which it is by then) and lists it in the manifest's
 *    `deletedDuringBackup`; still ready there, its bytes are missing from the data dir
 *    itself, which the manifest lists as `damagedInSource` and the command reports (as it
 *    does bytes of another size than their record says).
 *
 * Nothing half-written is a backup: everything goes into a hidden sibling directory, the
 * manifest (which restore insists on) is written last, and that directory is renamed to
 * `target` in one step at the end (`StagedDir`).
 *
 * Not copied, and why: image variants (a cache: each is made again from its file the first
 * time it is asked for, so their records are dropped from the copy too); uploads under
 * way (their clients are talking to the service being backed up; a restored service
 * expires their records as abandoned); the data dir's lock and disk reserve (made at start).
 */
export async function backupDataDir(options: BackupOptions): Promise<BackupManifest> {
  const { dataDir, signal } = options;
  const target = resolve(options.target);
  const report = options.onProgress ?? (() => {});
  const sourceDb = join(dataDir, DATABASE_FILE);
  if (!(await stat(sourceDb).catch(() => null))?.isFile()) {
    throw new BackupError(
      `${dataDir} holds no filehost database (${DATABASE_FILE}): set FILEHOST_DATA_DIR to the service's data directory.`,
    );
  }
  // The service's own connection settings do not apply: this one only reads, and waits
  // rather than fails when the service holds a lock for a moment.
  const live = new Database(sourceDb, { fileMustExist: true, timeout: 5000 });
  let staged: StagedDir | null = null;
  try {
    staged = await StagedDir.create(
      target,
      'incomplete',
      (reason) => new BackupError(reason),
      `${target} is not empty: give a new or empty directory for the backup.`,
    );
    const staging = staged.path;
    const blobs = join(dataDir, 'storage', 'blobs');
    const copied = new Map<string, CopiedBytes>();
    const copyBlob = async (id: string, onBytes: (count: number) => void) => {
      signal?.throwIfAborted();
      if (!isValidKey(id)) throw new Error(`The database names a file with an invalid id: ${id}`);
      const bytes = await copyVerified(
        blobPath(blobs, id),
        blobPath(join(staging, BLOBS_DIR), id),
        onBytes,
      );
      if (bytes) copied.set(id, bytes);
      return bytes;
    };

    // 1. The bytes of the files ready now.
    const known = live
      .prepare(`SELECT id FROM files WHERE status = 'ready'`)
      .pluck()
      .all() as string[];
    await copyAll(known, 'files-known', copyBlob, report);

    // 2. The database, at one instant.
    const databaseCopy = join(staging, DATABASE_FILE);
    await options.beforeDatabaseCopy?.();
    await copyDatabase(live, databaseCopy, report, signal);
    const copiedAt = new Date();
    await options.afterDatabaseCopy?.();
    const copy = new Database(databaseCopy);
    try {
      const readyAtCopy = new Map(
        (
          copy.prepare(`SELECT id, size FROM files WHERE status = 'ready'`).all() as {
            id: string;
            size: number;
          }[]
        ).map((row) => [row.id, row.size]),
      );
      // Bytes copied in step 1 of files deleted before the copy: not in this backup.
      for (const id of copied.keys()) {
        if (readyAtCopy.has(id)) continue;
        copied.delete(id);
        await rm(blobPath(join(staging, BLOBS_DIR), id), { force: true });
      }

      // 3. The bytes of the files that became ready meanwhile.
      const newer = [...readyAtCopy.keys()].filter((id) => !copied.has(id));
      await copyAll(newer, 'files-new', copyBlob, report);
      const deletedDuringBackup: string[] = [];
      const damagedInSource: string[] = [];
      const liveRow = live.prepare('SELECT status, deleted_at, token_id FROM files WHERE id = ?');
      for (const id of newer) {
        if (copied.has(id)) continue;
        const now = liveRow.get(id) as
          | { status: string; deleted_at: number | null; token_id: string | null }
          | undefined;
        if (now && now.status === 'deleted') {
          deletedDuringBackup.push(id);
          // As the service recorded the delete; its bytes are gone, so nothing is left to purge.
          copy
            .prepare(
              `UPDATE files SET status = 'deleted', deleted_at = ?, token_id = ?, purged = 1 WHERE id = ?`,
            )
            .run(now.deleted_at, now.token_id, id);
        } else {
          damagedInSource.push(id);
        }
      }
      // Variants are a cache whose bytes are not copied: their records go too, so the
      // restored service makes each again when it is first asked for.
      copy.exec('DELETE FROM variants');
      // One self-contained file: no WAL beside it.
      copy.pragma('journal_mode = DELETE');
      const integrity = copy.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok')
        throw new Error(`The database copy fails its integrity check: ${String(integrity)}`);

      // Bytes of another length than the record says: copied as they are, and reported.
      for (const [id, bytes] of copied) {
        if (bytes.size !== readyAtCopy.get(id)) damagedInSource.push(id);
      }
      const files = [...readyAtCopy.keys()]
        .filter((id) => copied.has(id))
        .sort()
        .map((id) => ({ id, ...(copied.get(id) as CopiedBytes) }));
      const count = (sql: string) => copy.prepare(sql).pluck().get() as number;
      const ids = (table: string) =>
        copy.prepare(`SELECT id FROM ${table} ORDER BY id`).pluck().all() as string[];
      const manifestBase = {
        format: BACKUP_FORMAT,
        version: BACKUP_VERSION,
        copiedAt: copiedAt.toISOString(),
        schemaVersion: copy.pragma('user_version', { simple: true }) as number,
        files,
        counts: {
          projects: count('SELECT count(*) FROM projects'),
          apiKeys: count('SELECT count(*) FROM api_keys'),
          webhooks: count('SELECT count(*) FROM webhooks'),
          uploadTokens: count('SELECT count(*) FROM upload_tokens'),
          files: files.length,
          bytes: files.reduce((sum, file) => sum + file.size, 0),
          events: count('SELECT count(*) FROM events'),
        },
        records: { projects: ids('projects'), apiKeys: ids('api_keys'), webhooks: ids('webhooks') },
        deletedDuringBackup: deletedDuringBackup.sort(),
        damagedInSource: damagedInSource.sort(),
      } as const;
      copy.close();

      const database = await entryOf(databaseCopy, DATABASE_FILE);
      const kept: ManifestEntry[] = [];
      for (const name of KEPT_FILES) {
        const bytes = await copyVerified(join(dataDir, name), join(staging, name));
        if (bytes) kept.push({ path: name, ...bytes });
      }
      signal?.throwIfAborted();
      options.beforeManifest?.();
      const manifest: BackupManifest = {
        ...manifestBase,
        finishedAt: new Date().toISOString(),
        database,
        kept,
      };
      // Flushed with the rest (syncTree) before the rename publishes any of it.
      await writeFile(join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`, {
        mode: 0o600,
        flag: 'wx',
      });
      await syncTree(staging);
      await staged.publish();
      return manifest;
    } finally {
      if (copy.open) copy.close();
    }
  } catch (error) {
    if (staged) await rm(staged.path, { recursive: true, force: true });
    throw error;
  } finally {
    live.close();
  }
}

/** Where a blob lives under a `blobs/` folder: by the first two characters of its id. */
export function blobPath(blobs: string, id: string): string {
  return join(blobs, id.slice(0, 2), id);
}

async function copyAll(
  ids: readonly string[],
  step: 'files-known' | 'files-new',
  copyBlob: (id: string, onBytes: (count: number) => void) => Promise<CopiedBytes | null>,
  report: (progress: BackupProgress) => void,
): Promise<void> {
  let done = 0;
  let bytes = 0;
  const tell = () => report({ step, done, total: ids.length, bytes });
  tell();
  await eachAtOnce(ids, COPIES_AT_ONCE, async (id) => {
    await copyBlob(id, (count) => {
      bytes += count;
    });
    done++;
    tell();
  });
}

/**
 * SQLite's online backup into `target`. A write by the service between two steps makes
 * SQLite start the copy again; once that has happened, the rest goes in one step (one
 * read of one snapshot, which no write can restart), so a busy service cannot keep the
 * copy from ever finishing. The copy is then of that step's instant.
 */
async function copyDatabase(
  live: Database.Database,
  target: string,
  report: (progress: BackupProgress) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  let remaining = Number.POSITIVE_INFINITY;
  let restarted = false;
  const { totalPages } = await live.backup(target, {
    progress: ({ totalPages, remainingPages }) => {
      signal?.throwIfAborted();
      // A step that started over copies its pages again from the first: no fewer left.
      if (remainingPages >= remaining) restarted = true;
      remaining = remainingPages;
      report({ step: 'database', copiedPages: totalPages - remainingPages, totalPages });
      return restarted ? totalPages : PAGES_PER_STEP;
    },
  });
  report({ step: 'database', copiedPages: totalPages, totalPages });
  // It holds key hashes and webhook secrets: owner-only, as the data dir's own.
  await chmod(target, 0o600);
}

async function entryOf(path: string, name: string): Promise<ManifestEntry> {
  // Read back from disk: the manifest vouches for the file as it was written.
  return { path: name, ...(await hashFile(path)) };
}
