import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Plan } from '../../api/limits.js';
import type { FileMetadata } from '../../api/types.js';
import { dataDirError } from '../startup-error.js';
import type {
  ApiKeyRow,
  CompletedPart,
  FileRow,
  ListPosition,
  MetadataStore,
  Project,
  ProjectPatch,
  Quota,
  UsageCounts,
} from './metadata-store.js';
import { limits, overQuota } from './metadata-store.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import {
  FILE_COLUMNS,
  type FileRecord,
  filePlaceholders,
  fileValues,
  type KeyRecord,
  type ProjectRecord,
  toFile,
  toKey,
  toProject,
  toUsage,
  USAGE_SQL,
  type UsageRecord,
} from './records.js';
import { MetadataUnavailableError } from './unavailable.js';

/**
 * A listing page after a cursor. Row-value comparison walks the partial index from the
 * cursor onwards, so a page costs the same at any depth (a test EXPLAINs this very text).
 */
export const LIST_AFTER_CURSOR_SQL = `SELECT ${FILE_COLUMNS} FROM files
  WHERE project_id = ? AND status IN ('pending', 'ready') AND (created_at, id) < (?, ?)
  ORDER BY created_at DESC, id DESC LIMIT ?`;

interface QueuedWrite {
  statement: () => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/** How long a statement waits for another process's lock before the request gets 503. */
const DEFAULT_BUSY_WAIT_MS = 3000;
/** At start-up nothing is being served yet, so waiting synchronously for a lock is fine. */
const OPENING_BUSY_TIMEOUT_MS = 5000;

export interface SqliteStoreOptions {
  busyWaitMs?: number;
}

/**
 * The embedded default: one SQLite file in WAL mode with `synchronous = FULL`, so a
 * committed row survives a crash of the process or the machine.
 *
 * better-sqlite3 is synchronous, and SQLite's own busy timeout sleeps inside the call, so a
 * database held locked by another process (an operator's `sqlite3` shell, a backup) would
 * freeze the whole event loop: no preflight, no CDN byte, nothing answers. Once open, the
 * store therefore never lets SQLite wait (`busy_timeout = 0`): a statement that finds the
 * database locked is retried from a timer, with back-off, until `busyWaitMs` has passed, and
 * then fails as `MetadataUnavailableError` (503 `unavailable`). Every method is one
 * statement or one transaction, so running it again from the start is safe.
 */
export class SqliteMetadataStore implements MetadataStore {
  readonly #db: Database.Database;
  readonly #held = new Set<string>();
  readonly #busyWaitMs: number;
  /** Writes waiting for the next group commit (see `#write`). */
  #queued: QueuedWrite[] = [];

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.#busyWaitMs = options.busyWaitMs ?? DEFAULT_BUSY_WAIT_MS;
    this.#db = new Database(path, { timeout: OPENING_BUSY_TIMEOUT_MS });
    try {
      this.#db.pragma('journal_mode = WAL');
      this.#db.pragma('synchronous = FULL');
      this.#db.pragma('foreign_keys = ON');
      this.#migrate();
    } catch (error) {
      this.#db.close();
      throw dataDirError(dirname(path), error);
    }
    this.#db.pragma('busy_timeout = 0');
  }

  async #run<T>(statement: () => T): Promise<T> {
    const deadline = Date.now() + this.#busyWaitMs;
    for (let delay = 5; ; delay = Math.min(delay * 2, 200)) {
      try {
        return statement();
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (Date.now() + delay > deadline) {
          throw new MetadataUnavailableError('The database is locked by another process', {
            cause: error,
            remedy: 'Stop the process that holds filehost.db, or use another FILEHOST_DATA_DIR.',
          });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /**
   * A write on an upload's path (a new row, its storage id, ready), committed together with
   * the others that arrive in the same turn of the event loop: one transaction, so one
   * fsync of the WAL (`synchronous = FULL`) for many rows instead of one each, and the
   * synchronous wait for the disk, which stops every request, is paid once. Each write is a
   * savepoint of its own, so one that fails (a constraint) is rolled back and rejected
   * alone. A write resolves only once its transaction has committed: what a caller is told
   * is on disk still is. (200 small files through the browser spent about 0.6 s of the
   * service's event loop in these commits, one per write, before; see the README.)
   */
  #write<T>(statement: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#queued.length === 0) setImmediate(() => this.#commitQueued());
      this.#queued.push({ statement, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  #commitQueued(): void {
    const writes = this.#queued;
    this.#queued = [];
    const outcomes = this.#run(() =>
      this.#db.transaction(() =>
        writes.map((write): PromiseSettledResult<unknown> => {
          try {
            return { status: 'fulfilled', value: this.#db.transaction(write.statement)() };
          } catch (error) {
            // Locked: the whole group waits and runs again (#run); else this write alone fails.
            if (isBusy(error)) throw error;
            return { status: 'rejected', reason: error };
          }
        }),
      )(),
    );
    outcomes.then(
      (settled) =>
        settled.forEach((outcome, index) => {
          const write = writes[index] as QueuedWrite;
          if (outcome.status === 'fulfilled') write.resolve(outcome.value);
          else write.reject(outcome.reason);
        }),
      (error: unknown) => {
        for (const write of writes) write.reject(error);
      },
    );
  }

  #migrate(): void {
    const current = this.#db.pragma('user_version', { simple: true }) as number;
    for (let version = current; version < SQLITE_MIGRATIONS.length; version++) {
      this.#db.transaction(() => {
        this.#db.exec(SQLITE_MIGRATIONS[version] as string);
        this.#db.pragma(`user_version = ${version + 1}`);
      })();
    }
  }

  async close(): Promise<void> {
    this.#db.close();
  }

  createProject(project: Project): Promise<void> {
    return this.#run(() => {
      this.#db
        .prepare(
          'INSERT INTO projects (id, name, plan, allowed_origins, allowed_types, storage_quota, max_pending_uploads, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          project.id,
          project.name,
          project.plan,
          JSON.stringify(project.allowedOrigins),
          project.allowedTypes ? JSON.stringify(project.allowedTypes) : null,
          project.storageQuota,
          project.maxPendingUploads,
          project.createdAt,
        );
    });
  }

  updateProject(id: string, patch: ProjectPatch): Promise<Project | null> {
    // One statement, so two concurrent patches of different fields both land.
    return this.#run(() => {
      const row = this.#db
        .prepare(
          `UPDATE projects SET name = coalesce(?, name), plan = coalesce(?, plan),
             allowed_origins = coalesce(?, allowed_origins),
             allowed_types = CASE WHEN ? THEN ? ELSE allowed_types END,
             storage_quota = CASE WHEN ? THEN ? ELSE storage_quota END,
             max_pending_uploads = CASE WHEN ? THEN ? ELSE max_pending_uploads END
           WHERE id = ? RETURNING *`,
        )
        .get(
          patch.name ?? null,
          patch.plan ?? null,
          patch.allowedOrigins ? JSON.stringify(patch.allowedOrigins) : null,
          patch.allowedTypes === undefined ? 0 : 1,
          patch.allowedTypes ? JSON.stringify(patch.allowedTypes) : null,
          patch.storageQuota === undefined ? 0 : 1,
          patch.storageQuota ?? null,
          patch.maxPendingUploads === undefined ? 0 : 1,
          patch.maxPendingUploads ?? null,
          id,
        ) as ProjectRecord<string> | undefined;
      return row ? projectOf(row) : null;
    });
  }

  getProject(id: string): Promise<Project | null> {
    return this.#run(() => {
      const row = this.#db.prepare('SELECT * FROM projects WHERE id = ?').get(id) as
        | ProjectRecord<string>
        | undefined;
      return row ? projectOf(row) : null;
    });
  }

  listProjects(): Promise<Project[]> {
    return this.#run(() => {
      const rows = this.#db
        .prepare('SELECT * FROM projects ORDER BY created_at, id')
        .all() as ProjectRecord<string>[];
      return rows.map(projectOf);
    });
  }

  addKey(key: ApiKeyRow): Promise<void> {
    return this.#run(() => {
      this.#db
        .prepare(
          'INSERT INTO api_keys (id, project_id, kind, hash, hint, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(key.id, key.projectId, key.kind, key.hash, key.hint, key.createdAt, key.revokedAt);
    });
  }

  findKeyByHash(hash: string): Promise<{ key: ApiKeyRow; project: Project } | null> {
    return this.#run(() => {
      const row = this.#db
        .prepare(
          `SELECT k.*, p.name AS p_name, p.plan AS p_plan, p.allowed_origins AS p_allowed_origins,
                  p.allowed_types AS p_allowed_types, p.storage_quota AS p_storage_quota,
                  p.max_pending_uploads AS p_max_pending_uploads, p.created_at AS p_created_at
           FROM api_keys k JOIN projects p ON p.id = k.project_id
           WHERE k.hash = ? AND k.revoked_at IS NULL`,
        )
        .get(hash) as
        | (KeyRecord & {
            p_name: string;
            p_plan: Plan;
            p_allowed_origins: string;
            p_allowed_types: string | null;
            p_storage_quota: number | null;
            p_max_pending_uploads: number | null;
            p_created_at: number;
          })
        | undefined;
      if (!row) return null;
      return {
        key: toKey(row),
        project: projectOf({
          id: row.project_id,
          name: row.p_name,
          plan: row.p_plan,
          allowed_origins: row.p_allowed_origins,
          allowed_types: row.p_allowed_types,
          storage_quota: row.p_storage_quota,
          max_pending_uploads: row.p_max_pending_uploads,
          created_at: row.p_created_at,
        }),
      };
    });
  }

  listKeys(projectId: string): Promise<ApiKeyRow[]> {
    return this.#run(() => {
      const rows = this.#db
        .prepare('SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, id')
        .all(projectId) as KeyRecord[];
      return rows.map(toKey);
    });
  }

  revokeKey(id: string, at: number): Promise<boolean> {
    return this.#run(() => {
      const result = this.#db
        .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
        .run(at, id);
      return result.changes > 0;
    });
  }

  insertFile(file: FileRow): Promise<void> {
    return this.#write(() => {
      this.#db
        .prepare(`INSERT INTO files (${FILE_COLUMNS}) VALUES (${filePlaceholders(() => '?')})`)
        .run(...fileValues(file));
    });
  }

  insertFiles(projectId: string, files: FileRow[], quota: Quota): Promise<void> {
    // One write: checked and inserted in one savepoint of the group's transaction, after
    // every write before it (SQLite has one writer), so two signs never both fit.
    return this.#write(() => {
      if (limits(quota)) {
        const usage = toUsage(this.#db.prepare(USAGE_SQL('?')).get(projectId) as UsageRecord);
        const over = overQuota(usage, files, quota);
        if (over) throw over;
      }
      const insert = this.#db.prepare(
        `INSERT INTO files (${FILE_COLUMNS}) VALUES (${filePlaceholders(() => '?')})`,
      );
      for (const file of files) insert.run(...fileValues(file));
    });
  }

  usage(projectId: string): Promise<UsageCounts> {
    return this.#run(() => toUsage(this.#db.prepare(USAGE_SQL('?')).get(projectId) as UsageRecord));
  }

  getVisibleFile(projectId: string, id: string): Promise<FileRow | null> {
    return this.#run(() => {
      const row = this.#db
        .prepare(
          `SELECT ${FILE_COLUMNS} FROM files
           WHERE id = ? AND project_id = ? AND status IN ('pending', 'ready')`,
        )
        .get(id, projectId) as FileRecord<string, string> | undefined;
      return row ? fileOf(row) : null;
    });
  }

  getLiveFile(id: string): Promise<FileRow | null> {
    return this.#run(() => {
      const row = this.#db
        .prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE id = ? AND status != 'deleted'`)
        .get(id) as FileRecord<string, string> | undefined;
      return row ? fileOf(row) : null;
    });
  }

  listFiles(projectId: string, after: ListPosition | null, limit: number): Promise<FileRow[]> {
    return this.#run(() => {
      // SQLite compares TEXT ids bytewise (BINARY collation), as cursors need.
      const rows = after
        ? (this.#db
            .prepare(LIST_AFTER_CURSOR_SQL)
            .all(projectId, after.createdAt, after.id, limit) as FileRecord<string, string>[])
        : (this.#db
            .prepare(
              `SELECT ${FILE_COLUMNS} FROM files
               WHERE project_id = ? AND status IN ('pending', 'ready')
               ORDER BY created_at DESC, id DESC LIMIT ?`,
            )
            .all(projectId, limit) as FileRecord<string, string>[]);
      return rows.map(fileOf);
    });
  }

  markReady(
    id: string,
    from: 'receiving' | 'pending',
    fields: Partial<
      Pick<FileRow, 'name' | 'mime' | 'size' | 'metadata' | 'createdAt' | 'completedParts'>
    >,
  ): Promise<boolean> {
    return this.#write(() => {
      const result = this.#db
        .prepare(
          `UPDATE files SET status = 'ready',
             name = coalesce(?, name), mime = coalesce(?, mime), size = coalesce(?, size),
             metadata = coalesce(?, metadata), created_at = coalesce(?, created_at),
             completed_parts = coalesce(?, completed_parts)
           WHERE id = ? AND status = ?`,
        )
        .run(
          fields.name ?? null,
          fields.mime ?? null,
          fields.size ?? null,
          fields.metadata ? JSON.stringify(fields.metadata) : null,
          fields.createdAt ?? null,
          fields.completedParts ? JSON.stringify(fields.completedParts) : null,
          id,
          from,
        );
      return result.changes > 0;
    });
  }

  markDeleted(projectId: string, id: string, at: number): Promise<FileRow | null> {
    return this.#run(() => {
      return this.#db.transaction(() => {
        const row = this.#db
          .prepare(
            `SELECT ${FILE_COLUMNS} FROM files
             WHERE id = ? AND project_id = ? AND status IN ('pending', 'ready')`,
          )
          .get(id, projectId) as FileRecord<string, string> | undefined;
        if (!row) return null;
        this.#db
          .prepare(`UPDATE files SET status = 'deleted', deleted_at = ? WHERE id = ?`)
          .run(at, id);
        return fileOf(row);
      })();
    });
  }

  discardReceiving(id: string): Promise<void> {
    return this.#run(() => {
      this.#db.prepare(`DELETE FROM files WHERE id = ? AND status = 'receiving'`).run(id);
    });
  }

  extendExpiry(id: string, expiresAt: number): Promise<void> {
    return this.#run(() => {
      this.#db
        .prepare(
          `UPDATE files SET expires_at = ? WHERE id = ? AND status IN ('pending', 'receiving')`,
        )
        .run(expiresAt, id);
    });
  }

  setStorageUploadId(id: string, storageUploadId: string): Promise<void> {
    return this.#write(() => {
      this.#db
        .prepare('UPDATE files SET storage_upload_id = ? WHERE id = ?')
        .run(storageUploadId, id);
    });
  }

  listDeletedUnpurged(limit: number): Promise<FileRow[]> {
    return this.#run(() => {
      const rows = this.#db
        .prepare(
          `SELECT ${FILE_COLUMNS} FROM files WHERE status = 'deleted' AND purged = 0
           ORDER BY deleted_at LIMIT ?`,
        )
        .all(limit) as FileRecord<string, string>[];
      return rows.map(fileOf);
    });
  }

  listReceiving(limit: number, leaseExpiredBefore?: number): Promise<FileRow[]> {
    return this.#run(() => {
      const rows = this.#db
        .prepare(
          `SELECT ${FILE_COLUMNS} FROM files WHERE status = 'receiving'
             AND (? IS NULL OR coalesce(expires_at, 0) < ?)
           ORDER BY created_at LIMIT ?`,
        )
        .all(leaseExpiredBefore ?? null, leaseExpiredBefore ?? null, limit) as FileRecord<
        string,
        string
      >[];
      return rows.map(fileOf);
    });
  }

  markPurged(id: string): Promise<void> {
    return this.#run(() => {
      this.#db.prepare(`UPDATE files SET purged = 1 WHERE id = ? AND status = 'deleted'`).run(id);
    });
  }

  listExpiredPending(before: number, limit: number): Promise<FileRow[]> {
    return this.#run(() => {
      const rows = this.#db
        .prepare(
          `SELECT ${FILE_COLUMNS} FROM files WHERE status = 'pending' AND expires_at < ?
           ORDER BY expires_at LIMIT ?`,
        )
        .all(before, limit) as FileRecord<string, string>[];
      return rows.map(fileOf);
    });
  }

  expirePending(id: string, at: number): Promise<boolean> {
    return this.#run(() => {
      const result = this.#db
        .prepare(
          `UPDATE files SET status = 'deleted', deleted_at = ? WHERE id = ? AND status = 'pending'`,
        )
        .run(at, id);
      return result.changes > 0;
    });
  }

  async initSetting(name: string, value: string): Promise<string> {
    await this.#run(() =>
      this.#db
        .prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
        .run(name, value),
    );
    return (await this.getSetting(name)) as string;
  }

  getSetting(name: string): Promise<string | null> {
    return this.#run(() => {
      const row = this.#db.prepare('SELECT value FROM settings WHERE name = ?').get(name) as
        | { value: string }
        | undefined;
      return row?.value ?? null;
    });
  }

  async runExclusive<T>(
    name: string,
    task: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false }> {
    // One process owns a SQLite data directory (it is locked), so a lock in memory is
    // exclusive across everything that shares this store.
    if (this.#held.has(name)) return { ran: false };
    this.#held.add(name);
    try {
      return { ran: true, value: await task() };
    } finally {
      this.#held.delete(name);
    }
  }
}

/** SQLite keeps JSON columns as text. */
function projectOf(row: ProjectRecord<string>): Project {
  return toProject({
    ...row,
    allowed_origins: JSON.parse(row.allowed_origins) as string[],
    allowed_types: row.allowed_types === null ? null : (JSON.parse(row.allowed_types) as string[]),
  });
}

function fileOf(row: FileRecord<string, string>): FileRow {
  return toFile({
    ...row,
    metadata: JSON.parse(row.metadata) as FileMetadata,
    completed_parts:
      row.completed_parts === null ? null : (JSON.parse(row.completed_parts) as CompletedPart[]),
  });
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
