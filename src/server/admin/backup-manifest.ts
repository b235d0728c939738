import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** The name a backup directory's manifest has; written last, so a backup without one is unfinished. */
export const MANIFEST_FILE = 'manifest.json';
export const BACKUP_FORMAT = 'filehost-backup';
/** Bumped when the layout changes in a way an older `admin restore` could not read. */
export const BACKUP_VERSION = 1;
/** The database copy, in the backup and in a data dir. */
export const DATABASE_FILE = 'filehost.db';
/** Files of the data dir kept as they are: the signing secret and the default project's keys. */
export const KEPT_FILES = ['signing.key', 'default-project.json'] as const;
/** Where file bytes go in a backup, laid out as `storage/blobs/` of a data dir. */
export const BLOBS_DIR = 'blobs';

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Size = Type.Integer({ minimum: 0 });
const Ids = Type.Array(Type.String());

const CopiedEntry = Type.Object({ path: Type.String(), size: Size, sha256: Sha256 });

const ManifestSchema = Type.Object({
  format: Type.Literal(BACKUP_FORMAT),
  version: Type.Literal(BACKUP_VERSION),
  /** The instant of the database copy: the backup holds the records as they were then. */
  copiedAt: Type.String(),
  /** When the backup was complete. */
  finishedAt: Type.String(),
  /** The database's `user_version`: how many schema migrations it has. */
  schemaVersion: Type.Integer({ minimum: 0 }),
  database: CopiedEntry,
  kept: Type.Array(CopiedEntry),
  /** Every ready file's bytes: its id (the blob's name), size and SHA-256. */
  files: Type.Array(
    Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]+$' }), size: Size, sha256: Sha256 }),
  ),
  counts: Type.Object({
    projects: Size,
    apiKeys: Size,
    webhooks: Size,
    uploadTokens: Size,
    files: Size,
    bytes: Size,
    events: Size,
  }),
  records: Type.Object({ projects: Ids, apiKeys: Ids, webhooks: Ids }),
  /**
   * Files ready at the copy's instant but deleted before their bytes were copied: recorded
   * in the copy as deleted (as they are in the service by then), their bytes not kept.
   */
  deletedDuringBackup: Ids,
  /**
   * Ready files whose bytes the data dir lacked, or held at another size than their record
   * says (damage there, not here): records and bytes kept as they were.
   */
  damagedInSource: Ids,
});

export type BackupManifest = Static<typeof ManifestSchema>;
export type ManifestEntry = Static<typeof CopiedEntry>;

/** A backup `admin restore` will not use, with the reason in the operator's words. */
export class BackupRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupRefusedError';
  }
}

/** The manifest of the backup in `dir`, checked for shape; refused when there is no whole one. */
export async function readManifest(dir: string): Promise<BackupManifest> {
  const found = await stat(dir).catch(() => null);
  if (!found?.isDirectory()) throw new BackupRefusedError(`${dir} is not a directory.`);
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new BackupRefusedError(
      `${dir} is not a filehost backup: it has no ${MANIFEST_FILE} (a backup that was stopped before it finished has none).`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BackupRefusedError(`The backup in ${dir} is damaged: ${MANIFEST_FILE} is not JSON.`);
  }
  const shape = parsed as { format?: unknown; version?: unknown } | null;
  if (shape?.format !== BACKUP_FORMAT) {
    throw new BackupRefusedError(
      `${dir} is not a filehost backup (${MANIFEST_FILE} names no ${BACKUP_FORMAT}).`,
    );
  }
  if (shape.version !== BACKUP_VERSION) {
    throw new BackupRefusedError(
      `The backup in ${dir} is of format version ${String(shape.version)}; this filehost reads version ${BACKUP_VERSION}. Restore it with the filehost that made it.`,
    );
  }
  const problem = Value.Errors(ManifestSchema, parsed).First();
  if (problem) {
    throw new BackupRefusedError(
      `The backup in ${dir} is damaged: ${MANIFEST_FILE} at ${problem.path || '/'}: ${problem.message}.`,
    );
  }
  return parsed as BackupManifest;
}
