import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Plan } from '../../../api/limits.js';
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
import { limits, overQuota, QuotaExceededError } from '../metadata-store.js';
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
} from '../records.js';
import { MetadataUnavailableError } from '../unavailable.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';

export interface PostgresStoreOptions {
  /**
   * Connections in this instance's pool; default 10. At least 2: `runExclusive` holds one
   * for as long as its task runs, and the task itself queries through another.
   */
  poolSize?: number;
  /**
   * How long a connection attempt, a wait for a free connection, or one statement may take
   * before the call fails with `MetadataUnavailableError`; default 5000 ms, so a request
   * answers 503 while a load balancer's timeout has not yet run out.
   */
  timeoutMs?: number;
  /**
   * How long opening may wait for another instance's migrations and run its own; default
   * 60000 ms. Longer than `timeoutMs` because a migration may rewrite a large table.
   */
  migrationTimeoutMs?: number;
  /** Hears about idle connections that died (server restart, failover); default: ignored. */
  onConnectionError?: (error: Error) => void;
}

/** The first page of a project's listing: $1 project id, $2 limit. */
export const LIST_FILES_SQL = `SELECT ${FILE_COLUMNS} FROM files
  WHERE project_id = $1 AND status IN ('pending', 'ready')
  ORDER BY created_at DESC, id DESC LIMIT $2`;

/**
 * A later page: $1 project id, $2 and $3 the position (created_at, id) to continue after,
 * $4 limit. The row-value comparison is one range condition on the `files_listing` index,
 * so the page starts at the cursor in the index instead of skipping the rows before it;
 * it is exported so a test can EXPLAIN exactly this text.
 */
export const LIST_FILES_AFTER_SQL = `SELECT ${FILE_COLUMNS} FROM files
  WHERE project_id = $1 AND status IN ('pending', 'ready')
    AND (created_at, id) < ($2, $3)
  ORDER BY created_at DESC, id DESC LIMIT $4`;

const INT8_OID = 20;

/**
 * `bigint` columns (times, sizes) as JS numbers. pg answers int8 as a string by default,
 * since not every int8 fits a double; every value this store writes came from a JS number,
 * and one that does not fit fails loudly instead of losing digits. Set on this store's
 * pool only: changing `pg.types` would change every other user of the library in the
 * process.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID && format !== 'binary') return parseInt8;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`bigint ${text} is not a safe JS integer`);
  return value;
}

/**
 * A 64-bit advisory lock key for a name: the first 8 bytes of its SHA-256, signed as
 * PostgreSQL's `bigint` is. Keys share one space with every other user of the database;
 * the `filehost:` prefix and 64 bits make a clash with them (or between two names, which
 * would only make those two tasks wait for each other) negligible.
 */
export function advisoryLockKey(name: string): string {
  return createHash('sha256').update(`filehost:${name}`).digest().readBigInt64BE(0).toString();
}

/** Held by whoever migrates, so instances starting together migrate one after the other. */
const MIGRATION_LOCK_KEY = advisoryLockKey('schema-migrations');

/**
 * SQLSTATEs that say "not now" rather than "no": the server is shutting down or starting
 * (57P01-03), has no connection slot left (53300), or cancelled a statement that ran past
 * `statement_timeout` (57014); class 08 is any connection failure.
 */
const UNAVAILABLE_SQLSTATES = new Set(['53300', '57P01', '57P02', '57P03', '57014']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * pg and pg-pool report a lost or timed-out connection with these messages and no code
 * ("timeout expired": `connectionTimeoutMillis` ran out before the TCP connect finished).
 */
const DRIVER_MESSAGES =
  /^(Connection terminated|timeout expired$|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof MetadataUnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    if (NETWORK_CODES.has(code)) return true;
  }
  if (DRIVER_MESSAGES.test(error.message)) return true;
  // Node reports a failed connect to a name with several addresses as an AggregateError.
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  return false;
}

/**
 * Turns a driver error into what the service acts on: `MetadataUnavailableError` when the
 * database cannot answer now, anything else (constraint violations, bad SQL) unchanged,
 * since retrying those would fail the same way.
 */
export function toStoreError(error: unknown): unknown {
  if (error instanceof MetadataUnavailableError || !isUnavailable(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new MetadataUnavailableError(`PostgreSQL is unavailable: ${reason}`, { cause: error });
}

/**
 * The metadata store for instances behind a load balancer: every instance opens the same
 * PostgreSQL database with its own pool. Each call is one statement (atomic on its own)
 * and fails within `timeoutMs` with `MetadataUnavailableError` when the database cannot
 * answer, instead of holding the request.
 */
export class PostgresMetadataStore implements MetadataStore {
  readonly #pool: pg.Pool;
  /** Lock names this process holds, so a second local caller answers without a round trip. */
  readonly #held = new Set<string>();
  #closed = false;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Connects and brings the schema up to date; safe when several instances open at once. */
  static async open(
    url: string,
    options: PostgresStoreOptions = {},
  ): Promise<PostgresMetadataStore> {
    const poolSize = options.poolSize ?? 10;
    const timeoutMs = options.timeoutMs ?? 5000;
    const migrationTimeoutMs = options.migrationTimeoutMs ?? 60_000;
    if (!Number.isInteger(poolSize) || poolSize < 2) {
      throw new TypeError(`poolSize must be an integer of at least 2, got ${poolSize}`);
    }
    for (const [option, value] of [
      ['timeoutMs', timeoutMs],
      ['migrationTimeoutMs', migrationTimeoutMs],
    ] as const) {
      if (!Number.isInteger(value) || value <= 0) {
        throw new TypeError(`${option} must be a positive integer of milliseconds, got ${value}`);
      }
    }

    await migrate(url, timeoutMs, migrationTimeoutMs);

    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      // Bounds both opening a connection and waiting for a free one in a busy pool.
      connectionTimeoutMillis: timeoutMs,
      // The server cancels a slow statement itself (a clean 57014, the connection stays
      // usable); the client-side limit, a little later, catches a server or network that
      // does not answer at all.
      statement_timeout: timeoutMs,
      query_timeout: timeoutMs + 1000,
      // Nothing here holds a transaction open across round trips; if a bug ever does, its
      // row locks must not outlive it for long.
      idle_in_transaction_session_timeout: 4 * timeoutMs,
      idleTimeoutMillis: 10_000,
      // Finds a dead peer under a connection that `runExclusive` holds idle.
      keepAlive: true,
      application_name: 'filehost',
      types: TYPES,
    });
    // An idle connection dying (server restart, failover, idle timeout on a proxy) is
    // emitted here; unheard, it would crash the process. The pool has already dropped it
    // and the next query opens a fresh one.
    pool.on('error', (error) => options.onConnectionError?.(error));
    return new PostgresMetadataStore(pool);
  }

  /** The connection pool, for the `PostgresRateLimiter` that shares its database. */
  get pool(): pg.Pool {
    return this.#pool;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  async #rows<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    try {
      return (await this.#pool.query<R>(text, values)).rows;
    } catch (error) {
      throw toStoreError(error);
    }
  }

  async #changed(text: string, values: unknown[]): Promise<boolean> {
    try {
      return ((await this.#pool.query(text, values)).rowCount ?? 0) > 0;
    } catch (error) {
      throw toStoreError(error);
    }
  }

  async createProject(project: Project): Promise<void> {
    await this.#rows(
      'INSERT INTO projects (id, name, plan, allowed_origins, allowed_types, storage_quota, max_pending_uploads, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [
        project.id,
        project.name,
        project.plan,
        JSON.stringify(project.allowedOrigins),
        project.allowedTypes ? JSON.stringify(project.allowedTypes) : null,
        project.storageQuota,
        project.maxPendingUploads,
        project.createdAt,
      ],
    );
  }

  async updateProject(id: string, patch: ProjectPatch): Promise<Project | null> {
    // One statement, so two concurrent patches of different fields both land.
    const [row] = await this.#rows<ProjectRecord>(
      `UPDATE projects SET name = coalesce($2, name), plan = coalesce($3, plan),
         allowed_origins = coalesce($4::json, allowed_origins),
         allowed_types = CASE WHEN $5 THEN $6::json ELSE allowed_types END,
         storage_quota = CASE WHEN $7 THEN $8::bigint ELSE storage_quota END,
         max_pending_uploads = CASE WHEN $9 THEN $10::integer ELSE max_pending_uploads END
       WHERE id = $1 RETURNING *`,
      [
        id,
        patch.name ?? null,
        patch.plan ?? null,
        patch.allowedOrigins ? JSON.stringify(patch.allowedOrigins) : null,
        patch.allowedTypes !== undefined,
        patch.allowedTypes ? JSON.stringify(patch.allowedTypes) : null,
        patch.storageQuota !== undefined,
        patch.storageQuota ?? null,
        patch.maxPendingUploads !== undefined,
        patch.maxPendingUploads ?? null,
      ],
    );
    return row ? toProject(row) : null;
  }

  async getProject(id: string): Promise<Project | null> {
    const [row] = await this.#rows<ProjectRecord>('SELECT * FROM projects WHERE id = $1', [id]);
    return row ? toProject(row) : null;
  }

  async listProjects(): Promise<Project[]> {
    const rows = await this.#rows<ProjectRecord>('SELECT * FROM projects ORDER BY created_at, id');
    return rows.map(toProject);
  }

  async addKey(key: ApiKeyRow): Promise<void> {
    await this.#rows(
      `INSERT INTO api_keys (id, project_id, kind, hash, hint, created_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [key.id, key.projectId, key.kind, key.hash, key.hint, key.createdAt, key.revokedAt],
    );
  }

  async findKeyByHash(hash: string): Promise<{ key: ApiKeyRow; project: Project } | null> {
    const [row] = await this.#rows<
      KeyRecord & {
        p_name: string;
        p_plan: Plan;
        p_allowed_origins: string[];
        p_allowed_types: string[] | null;
        p_storage_quota: number | null;
        p_max_pending_uploads: number | null;
        p_created_at: number;
      }
    >(
      `SELECT k.*, p.name AS p_name, p.plan AS p_plan, p.allowed_origins AS p_allowed_origins,
              p.allowed_types AS p_allowed_types, p.storage_quota AS p_storage_quota,
              p.max_pending_uploads AS p_max_pending_uploads, p.created_at AS p_created_at
       FROM api_keys k JOIN projects p ON p.id = k.project_id
       WHERE k.hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    if (!row) return null;
    return {
      key: toKey(row),
      project: toProject({
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
  }

  async listKeys(projectId: string): Promise<ApiKeyRow[]> {
    const rows = await this.#rows<KeyRecord>(
      'SELECT * FROM api_keys WHERE project_id = $1 ORDER BY created_at, id',
      [projectId],
    );
    return rows.map(toKey);
  }

  async revokeKey(id: string, at: number): Promise<boolean> {
    return this.#changed(
      'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL',
      [id, at],
    );
  }

  async insertFile(file: FileRow): Promise<void> {
    await this.#rows(
      `INSERT INTO files (${FILE_COLUMNS}) VALUES (${filePlaceholders((n) => `$${n}`)})`,
      fileValues(file),
    );
  }

  /**
   * The project's row is locked first (`FOR UPDATE`), so inserts into one project from any
   * number of instances take turns; its usage is then summed by a statement of its own,
   * which (read committed) sees what the turn before committed. Check and insert commit
   * together.
   */
  async insertFiles(projectId: string, files: FileRow[], quota: Quota): Promise<void> {
    await this.#transaction(async (client) => {
      if (limits(quota)) {
        await client.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
        const usage = toUsage(
          (await client.query<UsageRecord>(USAGE_SQL('$1'), [projectId])).rows[0],
        );
        const over = overQuota(usage, files, quota);
        if (over) throw over;
      }
      const width = FILE_COLUMNS.split(',').length;
      await client.query(
        `INSERT INTO files (${FILE_COLUMNS}) VALUES ${files
          .map((_, row) => `(${filePlaceholders((n) => `$${row * width + n}`)})`)
          .join(', ')}`,
        files.flatMap(fileValues),
      );
    });
  }

  async usage(projectId: string): Promise<UsageCounts> {
    const [row] = await this.#rows<UsageRecord>(USAGE_SQL('$1'), [projectId]);
    return toUsage(row);
  }

  /** `work` in one transaction on one connection; rolled back if it throws. */
  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw toStoreError(error);
    }
    try {
      await client.query('BEGIN');
      const value = await work(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if (error instanceof QuotaExceededError) throw error;
      throw toStoreError(error);
    } finally {
      client.release();
    }
  }

  async getVisibleFile(projectId: string, id: string): Promise<FileRow | null> {
    const [row] = await this.#rows<FileRecord>(
      `SELECT ${FILE_COLUMNS} FROM files
       WHERE id = $1 AND project_id = $2 AND status IN ('pending', 'ready')`,
      [id, projectId],
    );
    return row ? toFile(row) : null;
  }

  async getLiveFile(id: string): Promise<FileRow | null> {
    const [row] = await this.#rows<FileRecord>(
      `SELECT ${FILE_COLUMNS} FROM files WHERE id = $1 AND status != 'deleted'`,
      [id],
    );
    return row ? toFile(row) : null;
  }

  async listFiles(
    projectId: string,
    after: ListPosition | null,
    limit: number,
  ): Promise<FileRow[]> {
    const rows = after
      ? await this.#rows<FileRecord>(LIST_FILES_AFTER_SQL, [
          projectId,
          after.createdAt,
          after.id,
          limit,
        ])
      : await this.#rows<FileRecord>(LIST_FILES_SQL, [projectId, limit]);
    return rows.map(toFile);
  }

  async markReady(
    id: string,
    from: 'receiving' | 'pending',
    fields: Partial<
      Pick<FileRow, 'name' | 'mime' | 'size' | 'metadata' | 'createdAt' | 'completedParts'>
    >,
  ): Promise<boolean> {
    return this.#changed(
      `UPDATE files SET status = 'ready',
         name = coalesce($3, name), mime = coalesce($4, mime), size = coalesce($5, size),
         metadata = coalesce($6::json, metadata), created_at = coalesce($7, created_at),
         completed_parts = coalesce($8::json, completed_parts)
       WHERE id = $1 AND status = $2`,
      [
        id,
        from,
        fields.name ?? null,
        fields.mime ?? null,
        fields.size ?? null,
        fields.metadata ? JSON.stringify(fields.metadata) : null,
        fields.createdAt ?? null,
        fields.completedParts ? JSON.stringify(fields.completedParts) : null,
      ],
    );
  }

  async markDeleted(projectId: string, id: string, at: number): Promise<FileRow | null> {
    // The caller needs the row as it was (to answer with it); UPDATE ... RETURNING only
    // gives the new one, so the old one is read in the same statement with FOR UPDATE. Of
    // two concurrent deletes the second waits on the row lock, then re-checks the status
    // on the updated row, finds it deleted and answers no row: the file is returned once.
    const [row] = await this.#rows<FileRecord>(
      `WITH old AS (
         SELECT ${FILE_COLUMNS} FROM files
         WHERE id = $1 AND project_id = $2 AND status IN ('pending', 'ready')
         FOR UPDATE
       )
       UPDATE files SET status = 'deleted', deleted_at = $3 FROM old WHERE files.id = old.id
       RETURNING ${prefixed('old', FILE_COLUMNS)}`,
      [id, projectId, at],
    );
    return row ? toFile(row) : null;
  }

  async discardReceiving(id: string): Promise<void> {
    await this.#rows(`DELETE FROM files WHERE id = $1 AND status = 'receiving'`, [id]);
  }

  async extendExpiry(id: string, expiresAt: number): Promise<void> {
    await this.#rows(
      `UPDATE files SET expires_at = $2 WHERE id = $1 AND status IN ('pending', 'receiving')`,
      [id, expiresAt],
    );
  }

  async setStorageUploadId(id: string, storageUploadId: string): Promise<void> {
    await this.#rows('UPDATE files SET storage_upload_id = $2 WHERE id = $1', [
      id,
      storageUploadId,
    ]);
  }

  async listDeletedUnpurged(limit: number): Promise<FileRow[]> {
    const rows = await this.#rows<FileRecord>(
      `SELECT ${FILE_COLUMNS} FROM files WHERE status = 'deleted' AND NOT purged
       ORDER BY deleted_at, id LIMIT $1`,
      [limit],
    );
    return rows.map(toFile);
  }

  async listReceiving(limit: number, leaseExpiredBefore?: number): Promise<FileRow[]> {
    // A receiving row without a lease has no instance vouching for it: it counts as expired
    // (as in the SQLite store), or nothing would ever clean it up.
    const rows = await this.#rows<FileRecord>(
      `SELECT ${FILE_COLUMNS} FROM files
       WHERE status = 'receiving'
         AND ($2::bigint IS NULL OR coalesce(expires_at, 0) < $2::bigint)
       ORDER BY created_at, id LIMIT $1`,
      [limit, leaseExpiredBefore ?? null],
    );
    return rows.map(toFile);
  }

  async markPurged(id: string): Promise<void> {
    await this.#rows(`UPDATE files SET purged = true WHERE id = $1 AND status = 'deleted'`, [id]);
  }

  async listExpiredPending(before: number, limit: number): Promise<FileRow[]> {
    const rows = await this.#rows<FileRecord>(
      `SELECT ${FILE_COLUMNS} FROM files WHERE status = 'pending' AND expires_at < $1
       ORDER BY expires_at, id LIMIT $2`,
      [before, limit],
    );
    return rows.map(toFile);
  }

  async expirePending(id: string, at: number): Promise<boolean> {
    return this.#changed(
      `UPDATE files SET status = 'deleted', deleted_at = $2 WHERE id = $1 AND status = 'pending'`,
      [id, at],
    );
  }

  async initSetting(name: string, value: string): Promise<string> {
    const [inserted] = await this.#rows<{ value: string }>(
      'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value',
      [name, value],
    );
    if (inserted) return inserted.value;
    // Someone else's value won. It is read by a new statement on purpose: a SELECT in the
    // INSERT's own statement would use a snapshot taken before a concurrent inserter
    // committed, and could miss the very row the conflict was about.
    const stored = await this.getSetting(name);
    if (stored === null) throw new Error(`Setting ${name} conflicted but cannot be read`);
    return stored;
  }

  async getSetting(name: string): Promise<string | null> {
    const [row] = await this.#rows<{ value: string }>(
      'SELECT value FROM settings WHERE name = $1',
      [name],
    );
    return row?.value ?? null;
  }

  async runExclusive<T>(
    name: string,
    task: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false }> {
    // Advisory locks are re-entrant within one session, so two local callers must never
    // share a connection for this; the set answers a local second caller at once anyway.
    if (this.#held.has(name)) return { ran: false };
    this.#held.add(name);
    try {
      let client: pg.PoolClient;
      try {
        client = await this.#pool.connect();
      } catch (error) {
        throw toStoreError(error);
      }
      // A checked-out client has no listener of the pool's: if its connection dies while
      // the task runs, the 'error' event would otherwise crash the process.
      let lost: Error | undefined;
      const onError = (error: Error) => {
        lost = error;
      };
      client.on('error', onError);
      try {
        const key = advisoryLockKey(`exclusive:${name}`);
        let locked: boolean;
        try {
          const result = await client.query<{ locked: boolean }>(
            'SELECT pg_try_advisory_lock($1::bigint) AS locked',
            [key],
          );
          locked = result.rows[0]?.locked === true;
        } catch (error) {
          lost ??= error instanceof Error ? error : new Error(String(error));
          throw toStoreError(error);
        }
        if (!locked) return { ran: false };
        try {
          return { ran: true, value: await task() };
        } finally {
          // The task's outcome stands whatever happens here: if unlocking fails, the
          // connection is closed below, and closing the session releases its locks.
          await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).catch((error) => {
            lost ??= error instanceof Error ? error : new Error(String(error));
          });
        }
      } finally {
        client.off('error', onError);
        client.release(lost);
      }
    } finally {
      this.#held.delete(name);
    }
  }
}

/**
 * Applies the migrations this database lacks, on a connection of its own: it may wait for
 * another instance's migrations and run long statements, which the pool's timeouts forbid.
 */
async function migrate(url: string, timeoutMs: number, migrationTimeoutMs: number): Promise<void> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: migrationTimeoutMs,
    query_timeout: migrationTimeoutMs + 1000,
    application_name: 'filehost-migrate',
    types: TYPES,
  });
  client.on('error', () => {
    // Reported by the query that was running; unheard here it would crash the process.
  });
  try {
    await client.connect();
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)',
      );
      const applied = new Set(
        (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(
          (row) => row.version,
        ),
      );
      // Versions beyond this list are left alone: during a rolling deploy older instances
      // open a database that newer ones already migrated, and migrations only add.
      for (const [index, sql] of POSTGRES_MIGRATIONS.entries()) {
        const version = index + 1;
        if (applied.has(version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query(
            `INSERT INTO schema_migrations (version, applied_at)
             VALUES ($1, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)`,
            [version],
          );
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
      }
    } finally {
      await client
        .query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY])
        .catch(() => {
          // Ending the session below releases it anyway.
        });
    }
  } catch (error) {
    throw toStoreError(error);
  } finally {
    await client.end().catch(() => {});
  }
}

function prefixed(table: string, columns: string): string {
  return columns
    .split(', ')
    .map((column) => `${table}.${column}`)
    .join(', ');
}
