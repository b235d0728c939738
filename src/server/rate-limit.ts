/**
 * A token bucket per (key, client IP): capacity is the per-minute rate and it refills
 * continuously, so at a rate of 5 the sixth quick request is refused.
 */
export class RateLimiter {
  readonly #capacity: number;
  readonly #refillPerMs: number;
  readonly #buckets = new Map<string, { tokens: number; updatedAt: number }>();
  readonly #now: () => number;

  constructor(perMinute: number, now: () => number = Date.now) {
    this.#capacity = perMinute;
    this.#refillPerMs = perMinute / 60_000;
    this.#now = now;
  }

  /** Takes one token; returns 0 when allowed, else the seconds to wait (for `Retry-After`). */
  take(bucketKey: string): number {
    const now = this.#now();
    const bucket = this.#buckets.get(bucketKey) ?? { tokens: this.#capacity, updatedAt: now };
    bucket.tokens = Math.min(
      this.#capacity,
      bucket.tokens + (now - bucket.updatedAt) * this.#refillPerMs,
    );
    bucket.updatedAt = now;
    this.#buckets.set(bucketKey, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#refillPerMs / 1000));
  }

  /** Drops buckets that have refilled completely: they hold nothing a new bucket would not. */
  prune(): void {
    const now = this.#now();
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.#refillPerMs >= this.#capacity) {
        this.#buckets.delete(key);
      }
    }
  }
}
