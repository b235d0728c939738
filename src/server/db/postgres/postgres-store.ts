import { createHash } from 'node:crypto';
import pg from 'pg';
import { NETWORK_ERROR_CODES } from '../../ground/network-errors.js';
import type { EventDraft, FileRow, Reservation } from '../metadata-store.js';
import {
  checksAnything,
  overReservation,
  QuotaExceededError,
  TokenExhaustedError,
} from '../metadata-store.js';
import {
  type AnonymousUsageRecord,
  FILE_COLUMNS,
  type FileRecord,
  fileValues,
  type TokenUsageRecord,
  toAnonymousUsage,
  toFile,
  toTokenUsage,
  toUsage,
  type UsageRecord,
} from '../sql/records.js';
import { SqlMetadataStore, type SqlValue, type Step } from '../sql/sql-store.js';
import * as SQL from '../sql/statements.js';
import { MetadataUnavailableError } from '../unavailable.js';
import { LookupBatch } from './lookup-batch.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { numberedPlaceholders } from './placeholders.js';

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
 * The lookups of `getLiveFile`'s batches, each prepared under its name on every connection
 * (`pg` parses and plans a named statement once per connection, then only binds and runs
 * it): they run for nearly every CDN request. A batch of one, the most common under light
 * load, goes by `SQL.LIVE_FILE`: through `= ANY` it cost PostgreSQL twice the CPU
 * (test/bench/README.md, "pg-one").
 */
const LIVE_FILE = { name: 'filehost_live_file', text: numberedPlaceholders(SQL.LIVE_FILE) };
const LIVE_FILES = {
  name: 'filehost_live_files',
  text: `SELECT ${FILE_COLUMNS} FROM files WHERE id = ANY($1::text[]) AND status != 'deleted'`,
};

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
    if (NETWORK_ERROR_CODES.has(code)) return true;
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
export class PostgresMetadataStore extends SqlMetadataStore {
  readonly #pool: pg.Pool;
  /**
   * How long a failed transaction's connection is given to say how its COMMIT ended: as long
   * as the server lets a transaction idle (`idle_in_transaction_session_timeout`), after
   * which it has ended it anyway.
   */
  readonly #settleMs: number;
  /** Lock names this process holds, so a second local caller answers without a round trip. */
  readonly #held = new Set<string>();
  /** `getLiveFile`s of one turn of the event loop, asked in one statement. */
  readonly #liveFiles = new LookupBatch<FileRow>(async (ids) => {
    let rows: FileRecord[];
    try {
      const query =
        ids.length === 1 ? { ...LIVE_FILE, values: ids } : { ...LIVE_FILES, values: [ids] };
      rows = (await this.#pool.query<FileRecord>(query)).rows;
    } catch (error) {
      throw toStoreError(error);
    }
    return new Map(rows.map((row) => [row.id, toFile(row)]));
  });
  #closed = false;

  private constructor(pool: pg.Pool, settleMs: number) {
    super();
    this.#pool = pool;
    this.#settleMs = settleMs;
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
    const idleInTransactionMs = 4 * timeoutMs;

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
      idle_in_transaction_session_timeout: idleInTransactionMs,
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
    return new PostgresMetadataStore(pool, idleInTransactionMs);
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

  /**
   * One statement that a server taking writes answers: it is given a transaction id, so its
   * commit is a record written and flushed to the WAL, and it says whether its session may
   * write (a standby in recovery, or `default_transaction_read_only`, answer `on`, and
   * would refuse every write the service makes).
   */
  async probe(): Promise<void> {
    let readOnly: string | undefined;
    try {
      const result = await this.#pool.query<{ read_only: string }>(
        "SELECT pg_current_xact_id(), current_setting('transaction_read_only') AS read_only",
      );
      readOnly = result.rows[0]?.read_only;
    } catch (error) {
      throw toStoreError(error);
    }
    if (readOnly !== 'off') {
      throw new MetadataUnavailableError('The database is read-only');
    }
  }

  override getLiveFile(id: string): Promise<FileRow | null> {
    // PostgreSQL's text holds no NUL (it refuses the whole array that carries one): no row
    // has such an id, and asking would fail the batch of every other lookup of the turn.
    if (id.includes('\0')) return Promise.resolve(null);
    return this.#liveFiles.get(id);
  }

  protected async rows<R>(sql: string, values: readonly SqlValue[]): Promise<R[]> {
    try {
      return (await this.#pool.query(numberedPlaceholders(sql), [...values])).rows as R[];
    } catch (error) {
      throw toStoreError(error);
    }
  }

  protected async changes(sql: string, values: readonly SqlValue[]): Promise<number> {
    try {
      return (await this.#pool.query(numberedPlaceholders(sql), [...values])).rowCount ?? 0;
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /**
   * The project's row is locked first (`FOR UPDATE`), so inserts into one project from any
   * number of instances take turns; its usage is then summed by a statement of its own,
   * which (read committed) sees what the turn before committed. Check and insert commit
   * together.
   */
  async insertFiles(projectId: string, files: FileRow[], reservation: Reservation): Promise<void> {
    await this.#transaction(async (client) => {
      if (checksAnything(reservation)) {
        // One lock for every bound (the project's quota, its anonymous share, a token of
        // it): whoever holds it sums what is held and inserts before the next one sums.
        await client.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
        const { now, anonymous, token } = reservation;
        const one = async <R>(sql: string, values: SqlValue[]) =>
          (await client.query(numberedPlaceholders(sql), values)).rows[0] as R | undefined;
        const usage = toUsage(await one<UsageRecord>(SQL.PROJECT_USAGE, [projectId, now]));
        const held = anonymous
          ? toAnonymousUsage(
              await one<AnonymousUsageRecord>(
                SQL.ADDRESS_USAGE,
                SQL.addressUsageValues(
                  projectId,
                  anonymous.address,
                  now,
                  anonymous.perAddress.windowMs,
                ),
              ),
            )
          : null;
        const used = token
          ? toTokenUsage(await one<TokenUsageRecord>(SQL.TOKEN_USAGE, [token.id, now]))
          : null;
        const over = overReservation(reservation, files, usage, held, used);
        if (over) throw over;
      }
      await client.query(
        numberedPlaceholders(SQL.fileInsert(files.length)),
        files.flatMap(fileValues),
      );
    });
  }

  /**
   * A transaction-scoped advisory lock per project (not the project's row, which every sign
   * locks): recordings of one project's variants take turns across instances, and each
   * statement after the lock (read committed) sees what the turn before committed. (The
   * trigger's update of the project's `variant_usage` row locks that row too, which orders
   * them as well; the advisory lock says so where the turn is taken, at one round trip's
   * cost beside an encode's.)
   */
  protected async variantTurn(
    projectId: string,
    record: Step,
    evict: Step,
  ): Promise<{ recorded: number; evicted: Array<{ file_id: string; name: string }> }> {
    return this.#transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [
        advisoryLockKey(`variants:${projectId}`),
      ]);
      const recorded = await client.query(numberedPlaceholders(record.sql), [...record.values]);
      const evicted: Array<{ file_id: string; name: string }> = [];
      for (;;) {
        const batch = await client.query<{ file_id: string; name: string }>(
          numberedPlaceholders(evict.sql),
          [...evict.values],
        );
        evicted.push(...batch.rows);
        if (batch.rows.length < SQL.EVICTION_BATCH) break;
      }
      return { recorded: recorded.rowCount ?? 0, evicted };
    });
  }

  /** `work` in one transaction on one connection; rolled back if it throws. */
  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw toStoreError(error);
    }
    let unsettled: Error | undefined;
    try {
      await client.query('BEGIN');
      const value = await work(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      // A COMMIT whose answer came too late here (`Query read timeout`) may still commit
      // there. The connection answers the ROLLBACK queued behind it only once that COMMIT
      // has ended, so the caller hears of the failure when its writes are made or never will
      // be: what it takes back (a failed sign's rows) is then the truth, not a look taken
      // before a late COMMIT landed.
      const settle: pg.QueryConfig & { query_timeout: number } = {
        text: 'ROLLBACK',
        query_timeout: this.#settleMs,
      };
      await client.query(settle).catch((rollbackError: Error) => {
        unsettled = rollbackError;
      });
      if (error instanceof QuotaExceededError || error instanceof TokenExhaustedError) throw error;
      throw toStoreError(error);
    } finally {
      // A connection that did not answer even the ROLLBACK is not handed to anyone else.
      client.release(unsettled);
    }
  }

  protected override readonly claimLock = ' FOR UPDATE SKIP LOCKED';

  protected async changeFile(
    steps: Step[],
    event: EventDraft | undefined,
  ): Promise<FileRow | null> {
    if (!event && steps.length === 1) {
      // One statement is atomic on its own: no transaction's extra round trips.
      const [step] = steps as [Step];
      const [record] = await this.rows<FileRecord>(step.sql, step.values);
      return record ? toFile(record) : null;
    }
    return this.#transaction(async (client) => {
      const run = (step: Step) =>
        client.query<FileRecord>(numberedPlaceholders(step.sql), [...step.values]);
      let row: FileRow | null = null;
      for (const step of steps) {
        const result = await run(step);
        if (!step.yieldsRow) continue;
        const [record] = result.rows;
        if (!record) return null;
        row = toFile(record);
      }
      if (event && row) for (const step of this.eventSteps(event, row)) await run(step);
      return row;
    });
  }

  /**
   * The caller needs the row as it was (to answer with it); UPDATE ... RETURNING only gives
   * the new one, so the old one is read in the same statement with FOR UPDATE. Of two
   * concurrent deletes the second waits on the row lock, then re-checks the status on the
   * updated row, finds it deleted and answers no row: the file is returned once.
   */
  protected markDeletedSteps(projectId: string, id: string, at: number): Step[] {
    return [
      {
        sql: `WITH old AS (${SQL.VISIBLE_FILE} FOR UPDATE)
          UPDATE files SET status = 'deleted', deleted_at = ?,
            token_id = CASE WHEN old.status = 'ready' THEN old.token_id ELSE NULL END
          FROM old WHERE files.id = old.id
          RETURNING ${prefixed('old', FILE_COLUMNS)}`,
        values: [id, projectId, at],
        yieldsRow: true,
      },
    ];
  }

  override async runExclusive<T>(
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
