import { randomUUID } from 'node:crypto';

/** The header that names a request: echoed from the caller, or made here (decisions.md). */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * An id a caller may choose (a proxy's, a client's trace): 1 to 128 characters a log line,
 * a header and a URL carry as they are. Anything else (spaces, quotes, control characters,
 * non-ASCII, too long) could forge or break a log line, so it is replaced.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._~:/+=@-]{1,128}$/;

/** The caller's id when it sent one sane value, else a new random one. */
export function requestIdOf(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}
