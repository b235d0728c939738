import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_MIGRATIONS } from '../db/sqlite/migrations.js';
import { blobPath } from './backup.js';
import {
  type BackupManifest,
  BackupRefusedError,
  BLOBS_DIR,
  DATABASE_FILE,
  type ManifestEntry,
  readManifest,
} from './backup-manifest.js';
import { copyVerified, eachAtOnce, syncTree } from './copy-verified.js';
import { StagedDir } from './staged-dir.js';

export type RestoreProgress = { done: number; total: number; bytes: number; totalBytes: number };

export interface RestoreOptions {
  /** A directory `admin backup` wrote. */
  backup: string;
  /** The data directory to fill: empty, or not there yet (its parent must be). */
  dataDir: string;
  onProgress?: (progress: RestoreProgress) => void;
  signal?: AbortSignal;
}

const COPIES_AT_ONCE = 4;

/**
 * Fills an empty data directory from a backup, checking every byte against the manifest
 * on the way: a backup that is unfinished (no manifest), of an unknown format, damaged
 * (a file missing, truncated or changed) or of a newer schema than this filehost knows is
 * refused, and nothing of it is left behind. Like the backup, the restore is made in a
 * hidden sibling directory and renamed into place at the end (`StagedDir`: an empty
 * `dataDir` is replaced), so a data dir is never half restored.
 */
export async function restoreDataDir(options: RestoreOptions): Promise<BackupManifest> {
  const { signal } = options;
  const backup = resolve(options.backup);
  const dataDir = resolve(options.dataDir);
  const manifest = await readManifest(backup);
  if (manifest.schemaVersion > SQLITE_MIGRATIONS.length) {
    throw new BackupRefusedError(
      `The backup in ${backup} was made by a newer filehost (database schema ${manifest.schemaVersion}; this one knows ${SQLITE_MIGRATIONS.length}). Restore it with that version or a later one.`,
    );
  }
  const staged = await StagedDir.create(
    dataDir,
    'restoring',
    (reason) => new BackupRefusedError(reason),
    `${dataDir} is not empty: a restore fills an empty data directory only, so that nothing of another service's data is mixed in or lost. Give an empty or new directory in FILEHOST_DATA_DIR.`,
  );
  const staging = staged.path;
  try {
    const copyChecked = async (entry: ManifestEntry, from: string, to: string) => {
      signal?.throwIfAborted();
      const copied = await copyVerified(from, to, (count) => {
        bytes += count;
      });
      if (!copied) throw damaged(backup, `${entry.path} is missing`);
      if (copied.size !== entry.size || copied.sha256 !== entry.sha256) {
        throw damaged(
          backup,
          copied.size !== entry.size
            ? `${entry.path} has ${copied.size} bytes, the manifest says ${entry.size}`
            : `${entry.path} is not the file the manifest names (its SHA-256 differs)`,
        );
      }
    };
    let bytes = 0;
    const totalBytes =
      manifest.database.size +
      manifest.counts.bytes +
      manifest.kept.reduce((sum, k) => sum + k.size, 0);
    let done = 0;
    const report = () =>
      options.onProgress?.({ done, total: manifest.files.length, bytes, totalBytes });

    const database = join(staging, DATABASE_FILE);
    await copyChecked(manifest.database, join(backup, DATABASE_FILE), database);
    checkDatabase(backup, database, manifest);
    for (const entry of manifest.kept) {
      await copyChecked(entry, join(backup, entry.path), join(staging, entry.path));
    }
    report();
    const blobs = join(staging, 'storage', 'blobs');
    await eachAtOnce(manifest.files, COPIES_AT_ONCE, async (file) => {
      await copyChecked(
        {
          path: join(BLOBS_DIR, file.id.slice(0, 2), file.id),
          size: file.size,
          sha256: file.sha256,
        },
        blobPath(join(backup, BLOBS_DIR), file.id),
        blobPath(blobs, file.id),
      );
      done++;
      report();
    });
    await mkdir(blobs, { recursive: true, mode: 0o700 });
    await syncTree(staging);
    await staged.publish();
    return manifest;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

function damaged(backup: string, what: string): BackupRefusedError {
  return new BackupRefusedError(
    `The backup in ${backup} is damaged: ${what}. Nothing was restored; use another backup.`,
  );
}

/** The copied database opens, is sound, and holds the ready files the manifest lists. */
function checkDatabase(backup: string, path: string, manifest: BackupManifest): void {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('quick_check', { simple: true });
    if (integrity !== 'ok')
      throw damaged(backup, `${DATABASE_FILE} fails its check (${String(integrity)})`);
    const ready = db
      .prepare(`SELECT count(*) FROM files WHERE status = 'ready'`)
      .pluck()
      .get() as number;
    const expected = manifest.files.length + countAbsent(manifest);
    if (ready !== expected) {
      throw damaged(
        backup,
        `${DATABASE_FILE} holds ${ready} ready files, the manifest ${expected}`,
      );
    }
  } catch (error) {
    if (error instanceof BackupRefusedError) throw error;
    throw damaged(backup, `${DATABASE_FILE} cannot be read (${(error as Error).message})`);
  } finally {
    db.close();
  }
}

/** Ready records whose bytes the source lacked: in the database, not among the manifest's files. */
function countAbsent(manifest: BackupManifest): number {
  const listed = new Set(manifest.files.map((file) => file.id));
  return manifest.damagedInSource.filter((id) => !listed.has(id)).length;
}
