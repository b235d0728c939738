import type pg from 'pg';
import { toStoreError } from '../db/postgres/postgres-store.js';
import { type RateLimiter, takeToken } from './rate-limiter.js';

/**
 * The refilled token count before this take, written in SQL the way `takeToken` computes
 * it (same float8 operations in the same order, so both answer alike): $2 capacity, $3 now,
 * `b` the stored bucket.
 */
const REFILLED = `least($2::float8, b.tokens + greatest(0, $3::float8 - b.updated_at) * ($2::float8 / 60000))`;

/**
 * One take as one statement: a new bucket starts full and gives its first token; an
 * existing one refills since its last take and gives a token if it has one. ON CONFLICT
 * DO UPDATE locks the bucket's row and computes from its latest committed version, so
 * concurrent takes on one bucket, from any instance, queue on the row and none is lost;
 * and no lock is held across round trips. SET expressions all read the row as it was,
 * which is why the refill is spelled out where it is needed.
 */
const TAKE_SQL = `INSERT INTO rate_buckets AS b (key, tokens, updated_at, taken)
  VALUES ($1, $2::float8 - 1, $3::float8, true)
  ON CONFLICT (key) DO UPDATE SET
    tokens = ${REFILLED} - CASE WHEN ${REFILLED} >= 1 THEN 1 ELSE 0 END,
    updated_at = $3::float8,
    taken = ${REFILLED} >= 1
  RETURNING tokens, taken`;

/** Same test as `MemoryRateLimiter.prune`: the bucket would be full by now. */
const PRUNE_SQL = `DELETE FROM rate_buckets
  WHERE tokens + ($2::float8 - updated_at) * ($1::float8 / 60000) >= $1::float8`;

/**
 * Token buckets in PostgreSQL, so that instances behind a load balancer enforce one limit
 * together instead of one each. Uses the metadata store's pool, hence its timeouts: when
 * the database cannot answer, `take` fails with `MetadataUnavailableError`.
 */
export class PostgresRateLimiter implements RateLimiter {
  readonly #pool: pg.Pool;
  readonly #capacity: number;
  readonly #now: () => number;

  /**
   * @param pool `PostgresMetadataStore#pool`: its database holds the `rate_buckets` table.
   * @param perMinute the bucket's capacity and its refill per minute.
   * @param now the clock, injectable for tests; default `Date.now`.
   */
  constructor(pool: pg.Pool, perMinute: number, now: () => number = Date.now) {
    if (!Number.isFinite(perMinute) || perMinute < 1) {
      throw new TypeError(`perMinute must be a number of at least 1, got ${perMinute}`);
    }
    this.#pool = pool;
    this.#capacity = perMinute;
    this.#now = now;
  }

  async take(bucketKey: string): Promise<number> {
    const now = this.#now();
    let row: { tokens: number; taken: boolean } | undefined;
    try {
      const result = await this.#pool.query<{ tokens: number; taken: boolean }>(TAKE_SQL, [
        bucketKey,
        this.#capacity,
        now,
      ]);
      row = result.rows[0];
    } catch (error) {
      throw toStoreError(error);
    }
    if (!row) throw new Error('Rate limit statement returned no row');
    if (row.taken) return 0;
    // Refused: `tokens` is the refilled count as of `now`, so the shared arithmetic on it
    // (no time has passed, nothing to refill) gives exactly the memory limiter's wait.
    return takeToken({ tokens: row.tokens, updatedAt: now }, this.#capacity, now).wait;
  }

  async prune(): Promise<void> {
    try {
      await this.#pool.query(PRUNE_SQL, [this.#capacity, this.#now()]);
    } catch (error) {
      throw toStoreError(error);
    }
  }
}
