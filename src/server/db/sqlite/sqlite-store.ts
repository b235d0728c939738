import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { dataDirError } from '../../ground/startup-error.js';
import type { EventDraft, FileRow, Reservation } from '../metadata-store.js';
import { checksAnything, overReservation } from '../metadata-store.js';
import {
  type AnonymousUsageRecord,
  type FileRecord,
  fileValues,
  type TokenUsageRecord,
  toAnonymousUsage,
  toFile,
  toTokenUsage,
  toUsage,
  type UsageRecord,
} from '../sql/records.js';
import {
  SqlMetadataStore,
  type SqlValue,
  type StatementOptions,
  type Step,
} from '../sql/sql-store.js';
import * as SQL from '../sql/statements.js';
import { MetadataUnavailableError } from '../unavailable.js';
import { SQLITE_MIGRATIONS } from './migrations.js';

interface QueuedWrite {
  statement: () => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/** How long a statement waits for another process's lock before the request gets 503. */
const DEFAULT_BUSY_WAIT_MS = 3000;
/** How long a readiness probe waits for the write lock: within `/readyz`'s 1 s. */
const PROBE_WAIT_MS = 800;
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
export class SqliteMetadataStore extends SqlMetadataStore {
  readonly #db: Database.Database;
  readonly #held = new Set<string>();
  readonly #statements = new Map<string, Database.Statement>();
  readonly #busyWaitMs: number;
  /** Writes waiting for the next group commit (see `#write`). */
  #queued: QueuedWrite[] = [];

  constructor(path: string, options: SqliteStoreOptions = {}) {
    super();
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

  /**
   * Takes the write lock and gives it back (`BEGIN IMMEDIATE`, rolled back): in WAL mode
   * reads go through while another process holds that lock, so only taking it proves a
   * write could. Waits for the lock as a write would, at most `PROBE_WAIT_MS`.
   */
  async probe(): Promise<void> {
    const deadline = Date.now() + PROBE_WAIT_MS;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      try {
        this.#db.exec('BEGIN IMMEDIATE');
        this.#db.exec('ROLLBACK');
        return;
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
        if (!isBusy(error) || Date.now() + delay > deadline) {
          throw new MetadataUnavailableError('The database does not take writes', {
            cause: error,
          });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  protected rows<R>(
    sql: string,
    values: readonly SqlValue[],
    options: StatementOptions = {},
  ): Promise<R[]> {
    const statement = () => this.#prepared(sql).all(...values) as R[];
    return options.grouped ? this.#write(statement) : this.#run(statement);
  }

  protected changes(
    sql: string,
    values: readonly SqlValue[],
    options: StatementOptions = {},
  ): Promise<number> {
    const statement = () => this.#prepared(sql).run(...values).changes;
    if (options.volatile) return this.#run(() => this.#withoutWaitingForDisk(statement));
    return options.grouped ? this.#write(statement) : this.#run(statement);
  }

  /**
   * Commits without flushing the WAL (`synchronous = NORMAL` for this one statement): a
   * write a crash may lose (`StatementOptions.volatile`) stops no request on an fsync. The
   * next durable commit flushes it with its own frames.
   */
  #withoutWaitingForDisk<T>(statement: () => T): T {
    this.#db.pragma('synchronous = NORMAL');
    try {
      return statement();
    } finally {
      this.#db.pragma('synchronous = FULL');
    }
  }

  /** Statements are compiled once each: the same few texts run for every request. */
  #prepared(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  insertFiles(projectId: string, files: FileRow[], reservation: Reservation): Promise<void> {
    // One write: checked and inserted in one savepoint of the group's transaction, after
    // every write before it (SQLite has one writer), so two signs never both fit.
    return this.#write(() => {
      if (checksAnything(reservation)) {
        const { now, anonymous, token } = reservation;
        const usage = toUsage(this.#prepared(SQL.PROJECT_USAGE).get(projectId, now) as UsageRecord);
        const held = anonymous
          ? toAnonymousUsage(
              this.#prepared(SQL.ADDRESS_USAGE).get(
                ...SQL.addressUsageValues(
                  projectId,
                  anonymous.address,
                  now,
                  anonymous.perAddress.windowMs,
                ),
              ) as AnonymousUsageRecord,
            )
          : null;
        const used = token
          ? toTokenUsage(this.#prepared(SQL.TOKEN_USAGE).get(token.id, now) as TokenUsageRecord)
          : null;
        const over = overReservation(reservation, files, usage, held, used);
        if (over) throw over;
      }
      this.#prepared(SQL.fileInsert(files.length)).run(...files.flatMap(fileValues));
    });
  }

  /** One write: SQLite has one writer, so the record and its evictions are one turn. */
  protected variantTurn(
    _projectId: string,
    record: Step,
    evict: Step,
  ): Promise<{ recorded: number; evicted: Array<{ file_id: string; name: string }> }> {
    return this.#write(() => {
      const recorded = this.#prepared(record.sql).run(...record.values).changes;
      const evicted: Array<{ file_id: string; name: string }> = [];
      for (;;) {
        const batch = this.#prepared(evict.sql).all(...evict.values) as typeof evicted;
        evicted.push(...batch);
        if (batch.length < SQL.EVICTION_BATCH) return { recorded, evicted };
      }
    });
  }

  protected changeFile(
    steps: Step[],
    event: EventDraft | undefined,
    options: StatementOptions = {},
  ): Promise<FileRow | null> {
    const change = () =>
      this.#db.transaction((): FileRow | null => {
        let row: FileRow | null = null;
        for (const step of steps) {
          const statement = this.#prepared(step.sql);
          if (!step.yieldsRow) {
            statement.run(...step.values);
            continue;
          }
          const record = statement.get(...step.values) as FileRecord | undefined;
          if (!record) return null;
          row = toFile(record);
        }
        if (event && row) {
          for (const step of this.eventSteps(event, row)) {
            this.#prepared(step.sql).run(...step.values);
          }
        }
        return row;
      })();
    return options.grouped ? this.#write(change) : this.#run(change);
  }

  /** The row as it was, then the mark: one transaction (`changeFile`), so nothing comes between. */
  protected markDeletedSteps(projectId: string, id: string, at: number): Step[] {
    return [
      { sql: SQL.VISIBLE_FILE, values: [id, projectId], yieldsRow: true },
      { sql: SQL.FILE_MARK_DELETED, values: [at, id] },
    ];
  }

  override async runExclusive<T>(
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

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
