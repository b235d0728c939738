import Database from 'better-sqlite3';
import type { Plan } from '../../api/limits.js';
import type { FileMetadata } from '../../api/types.js';
import type { ApiKeyRow, FileRow, ListPosition, MetadataStore, Project } from './metadata-store.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import {
  FILE_COLUMNS,
  type FileRecord,
  fileValues,
  type KeyRecord,
  type ProjectRecord,
  toFile,
  toKey,
  toProject,
} from './records.js';

/**
 * The embedded default: one SQLite file in WAL mode with `synchronous = FULL`, so a
 * committed row survives a crash of the process or the machine.
 */
export class SqliteMetadataStore implements MetadataStore {
  readonly #db: Database.Database;
  readonly #held = new Set<string>();

  constructor(path: string) {
    this.#db = new Database(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = FULL');
    this.#db.pragma('foreign_keys = ON');
    this.#db.pragma('busy_timeout = 5000');
    this.#migrate();
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

  async createProject(project: Project): Promise<void> {
    this.#db
      .prepare(
        'INSERT INTO projects (id, name, plan, allowed_origins, created_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(
        project.id,
        project.name,
        project.plan,
        JSON.stringify(project.allowedOrigins),
        project.createdAt,
      );
  }

  async updateProject(
    id: string,
    patch: Partial<Pick<Project, 'name' | 'plan' | 'allowedOrigins'>>,
  ): Promise<Project | null> {
    const current = await this.getProject(id);
    if (!current) return null;
    const next = { ...current, ...patch };
    this.#db
      .prepare('UPDATE projects SET name = ?, plan = ?, allowed_origins = ? WHERE id = ?')
      .run(next.name, next.plan, JSON.stringify(next.allowedOrigins), id);
    return next;
  }

  async getProject(id: string): Promise<Project | null> {
    const row = this.#db.prepare('SELECT * FROM projects WHERE id = ?').get(id) as
      | ProjectRecord<string>
      | undefined;
    return row ? projectOf(row) : null;
  }

  async listProjects(): Promise<Project[]> {
    const rows = this.#db
      .prepare('SELECT * FROM projects ORDER BY created_at, id')
      .all() as ProjectRecord<string>[];
    return rows.map(projectOf);
  }

  async addKey(key: ApiKeyRow): Promise<void> {
    this.#db
      .prepare(
        'INSERT INTO api_keys (id, project_id, kind, hash, hint, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(key.id, key.projectId, key.kind, key.hash, key.hint, key.createdAt, key.revokedAt);
  }

  async findKeyByHash(hash: string): Promise<{ key: ApiKeyRow; project: Project } | null> {
    const row = this.#db
      .prepare(
        `SELECT k.*, p.name AS p_name, p.plan AS p_plan, p.allowed_origins AS p_allowed_origins,
                p.created_at AS p_created_at
         FROM api_keys k JOIN projects p ON p.id = k.project_id
         WHERE k.hash = ? AND k.revoked_at IS NULL`,
      )
      .get(hash) as
      | (KeyRecord & {
          p_name: string;
          p_plan: Plan;
          p_allowed_origins: string;
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
        created_at: row.p_created_at,
      }),
    };
  }

  async listKeys(projectId: string): Promise<ApiKeyRow[]> {
    const rows = this.#db
      .prepare('SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, id')
      .all(projectId) as KeyRecord[];
    return rows.map(toKey);
  }

  async revokeKey(id: string, at: number): Promise<boolean> {
    const result = this.#db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
      .run(at, id);
    return result.changes > 0;
  }

  async insertFile(file: FileRow): Promise<void> {
    this.#db
      .prepare(`INSERT INTO files (${FILE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(...fileValues(file));
  }

  async getVisibleFile(projectId: string, id: string): Promise<FileRow | null> {
    const row = this.#db
      .prepare(
        `SELECT ${FILE_COLUMNS} FROM files
         WHERE id = ? AND project_id = ? AND status IN ('pending', 'ready')`,
      )
      .get(id, projectId) as FileRecord<string> | undefined;
    return row ? fileOf(row) : null;
  }

  async getLiveFile(id: string): Promise<FileRow | null> {
    const row = this.#db
      .prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE id = ? AND status != 'deleted'`)
      .get(id) as FileRecord<string> | undefined;
    return row ? fileOf(row) : null;
  }

  async listFiles(
    projectId: string,
    after: ListPosition | null,
    limit: number,
  ): Promise<FileRow[]> {
    // Row-value comparison walks the partial index from the cursor onwards, so a page
    // costs the same at any depth. SQLite compares TEXT ids bytewise (BINARY collation).
    const rows = after
      ? (this.#db
          .prepare(
            `SELECT ${FILE_COLUMNS} FROM files
             WHERE project_id = ? AND status IN ('pending', 'ready')
               AND (created_at, id) < (?, ?)
             ORDER BY created_at DESC, id DESC LIMIT ?`,
          )
          .all(projectId, after.createdAt, after.id, limit) as FileRecord<string>[])
      : (this.#db
          .prepare(
            `SELECT ${FILE_COLUMNS} FROM files
             WHERE project_id = ? AND status IN ('pending', 'ready')
             ORDER BY created_at DESC, id DESC LIMIT ?`,
          )
          .all(projectId, limit) as FileRecord<string>[]);
    return rows.map(fileOf);
  }

  async markReady(
    id: string,
    from: 'receiving' | 'pending',
    fields: Partial<Pick<FileRow, 'name' | 'mime' | 'size' | 'metadata' | 'createdAt'>>,
  ): Promise<boolean> {
    const result = this.#db
      .prepare(
        `UPDATE files SET status = 'ready',
           name = coalesce(?, name), mime = coalesce(?, mime), size = coalesce(?, size),
           metadata = coalesce(?, metadata), created_at = coalesce(?, created_at)
         WHERE id = ? AND status = ?`,
      )
      .run(
        fields.name ?? null,
        fields.mime ?? null,
        fields.size ?? null,
        fields.metadata ? JSON.stringify(fields.metadata) : null,
        fields.createdAt ?? null,
        id,
        from,
      );
    return result.changes > 0;
  }

  async markDeleted(projectId: string, id: string, at: number): Promise<FileRow | null> {
    return this.#db.transaction(() => {
      const row = this.#db
        .prepare(
          `SELECT ${FILE_COLUMNS} FROM files
           WHERE id = ? AND project_id = ? AND status IN ('pending', 'ready')`,
        )
        .get(id, projectId) as FileRecord<string> | undefined;
      if (!row) return null;
      this.#db
        .prepare(`UPDATE files SET status = 'deleted', deleted_at = ? WHERE id = ?`)
        .run(at, id);
      return fileOf(row);
    })();
  }

  async discardReceiving(id: string): Promise<void> {
    this.#db.prepare(`DELETE FROM files WHERE id = ? AND status = 'receiving'`).run(id);
  }

  async extendExpiry(id: string, expiresAt: number): Promise<void> {
    this.#db
      .prepare(
        `UPDATE files SET expires_at = ? WHERE id = ? AND status IN ('pending', 'receiving')`,
      )
      .run(expiresAt, id);
  }

  async setStorageUploadId(id: string, storageUploadId: string): Promise<void> {
    this.#db
      .prepare('UPDATE files SET storage_upload_id = ? WHERE id = ?')
      .run(storageUploadId, id);
  }

  async listDeletedUnpurged(limit: number): Promise<FileRow[]> {
    const rows = this.#db
      .prepare(
        `SELECT ${FILE_COLUMNS} FROM files WHERE status = 'deleted' AND purged = 0
         ORDER BY deleted_at LIMIT ?`,
      )
      .all(limit) as FileRecord<string>[];
    return rows.map(fileOf);
  }

  async listReceiving(limit: number, leaseExpiredBefore?: number): Promise<FileRow[]> {
    const rows = this.#db
      .prepare(
        `SELECT ${FILE_COLUMNS} FROM files WHERE status = 'receiving'
           AND (? IS NULL OR coalesce(expires_at, 0) < ?)
         ORDER BY created_at LIMIT ?`,
      )
      .all(leaseExpiredBefore ?? null, leaseExpiredBefore ?? null, limit) as FileRecord<string>[];
    return rows.map(fileOf);
  }

  async markPurged(id: string): Promise<void> {
    this.#db.prepare(`UPDATE files SET purged = 1 WHERE id = ? AND status = 'deleted'`).run(id);
  }

  async listExpiredPending(before: number, limit: number): Promise<FileRow[]> {
    const rows = this.#db
      .prepare(
        `SELECT ${FILE_COLUMNS} FROM files WHERE status = 'pending' AND expires_at < ?
         ORDER BY expires_at LIMIT ?`,
      )
      .all(before, limit) as FileRecord<string>[];
    return rows.map(fileOf);
  }

  async expirePending(id: string, at: number): Promise<boolean> {
    const result = this.#db
      .prepare(
        `UPDATE files SET status = 'deleted', deleted_at = ? WHERE id = ? AND status = 'pending'`,
      )
      .run(at, id);
    return result.changes > 0;
  }

  async initSetting(name: string, value: string): Promise<string> {
    this.#db
      .prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
      .run(name, value);
    return (await this.getSetting(name)) as string;
  }

  async getSetting(name: string): Promise<string | null> {
    const row = this.#db.prepare('SELECT value FROM settings WHERE name = ?').get(name) as
      | { value: string }
      | undefined;
    return row?.value ?? null;
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

  /** For benchmarks and tests that need many rows fast: one transaction for all. */
  insertFilesBulk(files: Iterable<FileRow>): void {
    const insert = this.#db.prepare(
      `INSERT INTO files (${FILE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#db.transaction(() => {
      for (const f of files) {
        insert.run(...fileValues(f));
      }
    })();
  }

  /** The query plan of a listing page, so a test can prove it uses the index. */
  explainListing(): string[] {
    const rows = this.#db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT ${FILE_COLUMNS} FROM files
         WHERE project_id = ? AND status IN ('pending', 'ready') AND (created_at, id) < (?, ?)
         ORDER BY created_at DESC, id DESC LIMIT ?`,
      )
      .all('p', 1, 'x', 10) as { detail: string }[];
    return rows.map((row) => row.detail);
  }
}

/** SQLite keeps JSON columns as text. */
function projectOf(row: ProjectRecord<string>): Project {
  return toProject({ ...row, allowed_origins: JSON.parse(row.allowed_origins) as string[] });
}

function fileOf(row: FileRecord<string>): FileRow {
  return toFile({ ...row, metadata: JSON.parse(row.metadata) as FileMetadata });
}
