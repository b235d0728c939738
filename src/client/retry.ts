import { ApiError } from './api-error.js';
import { isTransient } from './transient.js';

export interface RetryOptions {
  /** How many times a transient failure is tried again. Default 3. */
  retries?: number;
  /** First backoff delay in ms, doubled on each retry (with jitter). Default 500. */
  baseDelayMs?: number;
  signal?: AbortSignal;
  /** Which failures are worth another try. Default `isTransient`. */
  isRetryable?: (error: unknown) => boolean;
}

/** The delay before retry number `attempt` (0-based): `Retry-After` when the service gave one. */
export function retryDelayMs(error: unknown, attempt: number, baseDelayMs = 500): number {
  return backoffMs(error instanceof ApiError ? error.retryAfter : null, attempt, baseDelayMs);
}

/** `Retry-After` (seconds) when there is one, else exponential backoff with jitter, at most 30 s. */
export function backoffMs(
  retryAfterSeconds: number | null,
  attempt: number,
  baseDelayMs = 500,
): number {
  if (retryAfterSeconds !== null) return retryAfterSeconds * 1000;
  const backoff = baseDelayMs * 2 ** attempt;
  return Math.min(30_000, backoff / 2 + Math.random() * (backoff / 2));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Runs `attempt`, trying again after transient failures (see `isTransient`) with backoff. */
export async function withRetry<T>(
  attempt: (tryNumber: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const retries = options.retries ?? 3;
  for (let tryNumber = 0; ; tryNumber++) {
    try {
      return await attempt(tryNumber);
    } catch (error) {
      const retryable = (options.isRetryable ?? isTransient)(error);
      if (tryNumber >= retries || !retryable || options.signal?.aborted) throw error;
      await sleep(retryDelayMs(error, tryNumber, options.baseDelayMs), options.signal);
    }
  }
}
