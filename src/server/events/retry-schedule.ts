/**
 * When a delivery is tried again after a failed attempt (decisions.md: 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h, 10 h), the one table of it: the first attempt is made at once, then one
 * more after each of these delays, and after the last the delivery is failed.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** Every attempt a delivery gets: the first, and one after each delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * After a failed attempt (the `attemptsMade`-th, counting it), when the next one is due,
 * or null when that was the last.
 */
export function nextAttemptAt(attemptsMade: number, now: number): number | null {
  const delay = RETRY_DELAYS_MS[attemptsMade - 1];
  return delay === undefined ? null : now + delay;
}
