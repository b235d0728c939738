/**
 * Rate limits for publishable keys: a token bucket per (key, client address group: `addressGroup`) whose capacity is
 * the per-minute rate and which refills continuously, so at a rate of 5 the sixth quick
 * request is refused. The embedded service keeps the buckets in memory; instances behind a
 * load balancer share them in PostgreSQL, so the limit holds across instances.
 */
export interface RateLimiter {
  /** Takes one token; answers 0 when allowed, else the seconds to wait (for `Retry-After`). */
  take(bucketKey: string): Promise<number>;
  /** Drops buckets that have refilled completely: they hold nothing a new bucket would not. */
  prune(): Promise<void>;
}

/** The arithmetic every implementation shares: refill since `updatedAt`, then take one. */
export function takeToken(
  bucket: { tokens: number; updatedAt: number } | undefined,
  capacity: number,
  now: number,
): { bucket: { tokens: number; updatedAt: number }; wait: number } {
  const refillPerMs = capacity / 60_000;
  const before = bucket ?? { tokens: capacity, updatedAt: now };
  const tokens = Math.min(
    capacity,
    before.tokens + Math.max(0, now - before.updatedAt) * refillPerMs,
  );
  if (tokens >= 1) return { bucket: { tokens: tokens - 1, updatedAt: now }, wait: 0 };
  return {
    bucket: { tokens, updatedAt: now },
    wait: Math.max(1, Math.ceil((1 - tokens) / refillPerMs / 1000)),
  };
}

/** One process's buckets (the embedded default). */
export class MemoryRateLimiter implements RateLimiter {
  readonly #capacity: number;
  readonly #buckets = new Map<string, { tokens: number; updatedAt: number }>();
  readonly #now: () => number;

  constructor(perMinute: number, now: () => number = Date.now) {
    this.#capacity = perMinute;
    this.#now = now;
  }

  async take(bucketKey: string): Promise<number> {
    const { bucket, wait } = takeToken(this.#buckets.get(bucketKey), this.#capacity, this.#now());
    this.#buckets.set(bucketKey, bucket);
    return wait;
  }

  async prune(): Promise<void> {
    const now = this.#now();
    const refillPerMs = this.#capacity / 60_000;
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * refillPerMs >= this.#capacity) {
        this.#buckets.delete(key);
      }
    }
  }
}
