import { randomUUID } from 'node:crypto';
import { fail } from '../ground/errors.js';
import type { IngestContext } from '../ingest/ingest-context.js';

/**
 * How long a PATCH's write lease lasts unless renewed, and how often it is renewed while the
 * PATCH lives. Short, so that after an instance is killed mid-PATCH the client's retry takes
 * the upload over within seconds; renewed five times per lease, so a live PATCH keeps it
 * through a slow database write or a busy event loop.
 */
export const TUS_LEASE_MS = 5_000;
const RENEW_MS = 1_000;
/**
 * A holder stops writing this long before its lease could run out by its own clock, so that
 * no byte of it is still being written when another PATCH may take the lease over.
 */
const MARGIN_MS = 1_000;

/**
 * One PATCH's write lease on a tus upload, taken with a compare-and-set in the database
 * (`takeTusLease`), so of two PATCHes at once, on any instances, one writes. `check()` is
 * called before each chunk is written: it throws once the lease was lost or may have run
 * out, so a holder whose renewals stopped reaching the database (a stalled instance, a
 * database away) stops before anyone else may start.
 */
/** What a lease reads: the database, and this instance's clock. */
type LeaseContext = Pick<IngestContext, 'db' | 'now'>;

export class TusLease {
  readonly #owner = randomUUID();
  /** Until when, by this instance's clock, the lease is surely still this PATCH's. */
  #heldUntil = 0;
  #lost = false;
  #released = false;
  #renewal: ReturnType<typeof setInterval> | undefined;

  private constructor(
    private readonly ctx: LeaseContext,
    private readonly id: string,
  ) {}

  /** The lease of upload `id` at `offset`, or null if another PATCH holds it or the offset moved. */
  static async take(ctx: LeaseContext, id: string, offset: number): Promise<TusLease | null> {
    const lease = new TusLease(ctx, id);
    const now = ctx.now();
    const until = now + TUS_LEASE_MS;
    if (!(await ctx.db.takeTusLease(id, { owner: lease.#owner, offset, now, until }))) return null;
    lease.#heldUntil = until;
    lease.#renewal = setInterval(() => lease.#renew(), RENEW_MS);
    return lease;
  }

  /** Throws `409` unless the lease is surely still this PATCH's. */
  check(): void {
    if (this.#lost || this.ctx.now() >= this.#heldUntil - MARGIN_MS) {
      this.#lost = true;
      fail('upload_conflict', 'This PATCH lost its lease to another; ask HEAD for its offset.');
    }
  }

  /**
   * Records that the bytes up to `offset` are durable, keeping the lease (`release`: giving
   * it up); `409` when it was lost meanwhile (nothing recorded then).
   */
  async advance(offset: number, release: boolean): Promise<void> {
    this.check();
    const sent = this.ctx.now();
    const until = release ? null : sent + TUS_LEASE_MS;
    if (!(await this.ctx.db.advanceTusUpload(this.id, { owner: this.#owner, offset, until }))) {
      this.#lost = true;
      fail('upload_conflict', 'This PATCH lost its lease to another; ask HEAD for its offset.');
    }
    if (release) this.#stop();
    else this.#heldUntil = sent + TUS_LEASE_MS;
  }

  /** Gives the lease up (if still held) and stops renewing it. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#stop();
    await this.ctx.db.releaseTusLease(this.id, this.#owner).catch(() => undefined);
  }

  #stop(): void {
    this.#released = true;
    clearInterval(this.#renewal);
  }

  #renew(): void {
    // Counted from before the write: the database may record it later, never earlier.
    const sent = this.ctx.now();
    this.ctx.db.renewTusLease(this.id, this.#owner, sent + TUS_LEASE_MS).then(
      (renewed) => {
        if (!renewed) this.#lost = true;
        else if (!this.#released) this.#heldUntil = Math.max(this.#heldUntil, sent + TUS_LEASE_MS);
      },
      // A failed renewal changes nothing: the lease runs out unless a later one succeeds.
      () => undefined,
    );
  }
}
