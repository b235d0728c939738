import type {
  ApiKeyRow,
  FileRow,
  ListPosition,
  MetadataStore,
  Project,
  ProjectPatch,
  Quota,
  UsageCounts,
} from '../metadata-store.js';
import {
  type FileRecord,
  fileValues,
  type KeyRecord,
  type KeyWithProjectRecord,
  type ProjectRecord,
  toFile,
  toKey,
  toKeyWithProject,
  toProject,
  toUsage,
  type UsageRecord,
} from './records.js';
import * as SQL from './statements.js';

export type SqlValue = string | number | null;

/**
 * How a statement is run. `uploadPath`: a write on an upload's path (a new row, its
 * storage id, ready), which SQLite commits together with the others of the same turn of
 * the event loop (one fsync for many); everything else runs on its own.
 */
export interface StatementOptions {
  uploadPath?: boolean;
}

/**
 * The metadata store over SQL, once for both databases: every method is one statement of
 * `statements.ts`, run through the two primitives a store implements for its driver.
 * What is really one database's (transactions and locks, the old row of a delete,
 * exclusive background tasks, closing) stays abstract.
 */
export abstract class SqlMetadataStore implements MetadataStore {
  /** The rows `sql` answers, with `values` bound to its `?` in order. */
  protected abstract rows<R>(
    sql: string,
    values: readonly SqlValue[],
    options?: StatementOptions,
  ): Promise<R[]>;
  /** How many rows `sql` changed. */
  protected abstract changes(
    sql: string,
    values: readonly SqlValue[],
    options?: StatementOptions,
  ): Promise<number>;

  abstract close(): Promise<void>;
  abstract insertFiles(projectId: string, files: FileRow[], quota: Quota): Promise<void>;
  abstract markDeleted(projectId: string, id: string, at: number): Promise<FileRow | null>;
  abstract runExclusive<T>(
    name: string,
    task: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false }>;

  async createProject(project: Project): Promise<void> {
    await this.changes(SQL.PROJECT_INSERT, [
      project.id,
      project.name,
      project.plan,
      JSON.stringify(project.allowedOrigins),
      project.allowedTypes ? JSON.stringify(project.allowedTypes) : null,
      project.storageQuota,
      project.maxPendingUploads,
      project.createdAt,
    ]);
  }

  async updateProject(id: string, patch: ProjectPatch): Promise<Project | null> {
    const given = (value: unknown) => (value === undefined ? 0 : 1);
    const [row] = await this.rows<ProjectRecord>(SQL.PROJECT_UPDATE, [
      patch.name ?? null,
      patch.plan ?? null,
      patch.allowedOrigins ? JSON.stringify(patch.allowedOrigins) : null,
      given(patch.allowedTypes),
      patch.allowedTypes ? JSON.stringify(patch.allowedTypes) : null,
      given(patch.storageQuota),
      patch.storageQuota ?? null,
      given(patch.maxPendingUploads),
      patch.maxPendingUploads ?? null,
      id,
    ]);
    return row ? toProject(row) : null;
  }

  async getProject(id: string): Promise<Project | null> {
    const [row] = await this.rows<ProjectRecord>(SQL.PROJECT_BY_ID, [id]);
    return row ? toProject(row) : null;
  }

  async listProjects(): Promise<Project[]> {
    return (await this.rows<ProjectRecord>(SQL.PROJECTS, [])).map(toProject);
  }

  async addKey(key: ApiKeyRow): Promise<void> {
    await this.changes(SQL.KEY_INSERT, [
      key.id,
      key.projectId,
      key.kind,
      key.hash,
      key.hint,
      key.createdAt,
      key.revokedAt,
    ]);
  }

  async findKeyByHash(hash: string): Promise<{ key: ApiKeyRow; project: Project } | null> {
    const [row] = await this.rows<KeyWithProjectRecord>(SQL.LIVE_KEY_BY_HASH, [hash]);
    return row ? toKeyWithProject(row) : null;
  }

  async listKeys(projectId: string): Promise<ApiKeyRow[]> {
    return (await this.rows<KeyRecord>(SQL.KEYS_OF_PROJECT, [projectId])).map(toKey);
  }

  async revokeKey(id: string, at: number): Promise<boolean> {
    return (await this.changes(SQL.KEY_REVOKE, [at, id])) > 0;
  }

  async insertFile(file: FileRow): Promise<void> {
    await this.changes(SQL.fileInsert(1), fileValues(file), { uploadPath: true });
  }

  async usage(projectId: string): Promise<UsageCounts> {
    const [row] = await this.rows<UsageRecord>(SQL.PROJECT_USAGE, [projectId]);
    return toUsage(row);
  }

  async getVisibleFile(projectId: string, id: string): Promise<FileRow | null> {
    return this.#file(SQL.VISIBLE_FILE, [id, projectId]);
  }

  async getLiveFile(id: string): Promise<FileRow | null> {
    return this.#file(SQL.LIVE_FILE, [id]);
  }

  async listFiles(
    projectId: string,
    after: ListPosition | null,
    limit: number,
  ): Promise<FileRow[]> {
    return after
      ? this.#files(SQL.LIST_AFTER_POSITION, [projectId, after.createdAt, after.id, limit])
      : this.#files(SQL.LIST_FIRST_PAGE, [projectId, limit]);
  }

  async markReady(
    id: string,
    from: 'receiving' | 'pending',
    fields: Partial<
      Pick<FileRow, 'name' | 'mime' | 'size' | 'metadata' | 'createdAt' | 'completedParts'>
    >,
  ): Promise<boolean> {
    const changed = await this.changes(
      SQL.FILE_MARK_READY,
      [
        fields.name ?? null,
        fields.mime ?? null,
        fields.size ?? null,
        fields.metadata ? JSON.stringify(fields.metadata) : null,
        fields.createdAt ?? null,
        fields.completedParts ? JSON.stringify(fields.completedParts) : null,
        id,
        from,
      ],
      { uploadPath: true },
    );
    return changed > 0;
  }

  async discardReceiving(id: string): Promise<void> {
    await this.changes(SQL.RECEIVING_DISCARD, [id]);
  }

  async extendExpiry(id: string, expiresAt: number): Promise<void> {
    await this.changes(SQL.EXPIRY_EXTEND, [expiresAt, id]);
  }

  async setStorageUploadId(id: string, storageUploadId: string): Promise<void> {
    await this.changes(SQL.STORAGE_UPLOAD_ID_SET, [storageUploadId, id], { uploadPath: true });
  }

  async listDeletedUnpurged(limit: number): Promise<FileRow[]> {
    return this.#files(SQL.DELETED_UNPURGED, [limit]);
  }

  async listReceiving(limit: number, leaseExpiredBefore?: number): Promise<FileRow[]> {
    const before = leaseExpiredBefore ?? null;
    return this.#files(SQL.RECEIVING, [before, before, limit]);
  }

  async markPurged(id: string): Promise<void> {
    await this.changes(SQL.PURGED_MARK, [id]);
  }

  async listExpiredPending(before: number, limit: number): Promise<FileRow[]> {
    return this.#files(SQL.EXPIRED_PENDING, [before, limit]);
  }

  async expirePending(id: string, at: number): Promise<boolean> {
    return (await this.changes(SQL.PENDING_EXPIRE, [at, id])) > 0;
  }

  async initSetting(name: string, value: string): Promise<string> {
    const [inserted] = await this.rows<{ value: string }>(SQL.SETTING_INIT, [name, value]);
    if (inserted) return inserted.value;
    const stored = await this.getSetting(name);
    if (stored === null) throw new Error(`Setting ${name} conflicted but cannot be read`);
    return stored;
  }

  async getSetting(name: string): Promise<string | null> {
    const [row] = await this.rows<{ value: string }>(SQL.SETTING, [name]);
    return row?.value ?? null;
  }

  async #file(sql: string, values: SqlValue[]): Promise<FileRow | null> {
    const [row] = await this.rows<FileRecord>(sql, values);
    return row ? toFile(row) : null;
  }

  async #files(sql: string, values: SqlValue[]): Promise<FileRow[]> {
    return (await this.rows<FileRecord>(sql, values)).map(toFile);
  }
}
