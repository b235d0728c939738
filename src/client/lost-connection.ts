import { isStream } from './connection.js';

/*
 * A kept-alive connection can be closed by the server just as a request is written on it:
 * the server's idle timeout ends it while the request is on its way (a race no timeout
 * setting removes, only narrows). Browsers send such a request again by themselves
 * (Chromium and Firefox: any method, when the connection had served a request before and
 * no byte of the answer came; test/e2e/lost-connection.test.ts); Node's fetch does not, so
 * `FilehostClient` does, here.
 */

/**
 * `fetch` (the given one, else the global one when called), which sends a request once
 * more when its connection was closed or reset under it before any of the answer came, so
 * that a kept-alive connection the server was closing costs nothing but the resend. The
 * runtime drops the connection that failed, so the resend goes on another one (a new one
 * unless another idle one is pooled; should that fail too, the call fails as before).
 *
 * Node's fetch does not say whether the connection had served a request before (a reset
 * carries no socket details), so a new connection reset before its answer is resent once
 * too. What may then run twice is a call the service received and dropped unanswered (a
 * crash): rare, and what any retry of a network failure risks (a sign: one pending upload
 * too many, which expires and is swept; complete is idempotent). Not resent: a stream body
 * (read once, already spent), an aborted call, and any other failure (a refused
 * connection, a DNS failure, a timeout), which is the caller's retry's to judge.
 */
export function resendOnLostConnection(fetch?: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const send = fetch ?? globalThis.fetch;
    try {
      return await send(input, init);
    } catch (error) {
      const resendable =
        (typeof input === 'string' || input instanceof URL) &&
        !isStream(init?.body) &&
        !init?.signal?.aborted;
      if (!resendable || !isLostConnection(error)) throw error;
      return send(input, init);
    }
  };
}

/**
 * Node's (undici's) words for a connection that ended under a request before its answer:
 * `fetch failed` caused by a reset (`ECONNRESET`), a write to a closed socket (`EPIPE`), or
 * the other side's close (`UND_ERR_SOCKET`). A browser's fetch names no cause.
 */
function isLostConnection(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}
