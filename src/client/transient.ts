import { ApiError } from './api-error.js';

/*
 * The retry rule, in a module of its own rather than `ApiError`'s: the elements' first load
 * (`dist/filehost.js`) carries `ApiError` (every call of the connection can fail), while
 * only the upload calls retry, so the rule comes with the upload engine.
 */

/**
 * Whether trying again can help: network loss, 408, 429 and 5xx. Never 400/401/403/404/409/413:
 * the same request would get the same answer. Nor a failed `tokenProvider` (status 0 too, as
 * the service never answered): the page's own code decides its retries, and a route that
 * answers 404 answers it again.
 */
export function isTransient(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.code !== 'token_provider_failed' &&
    isTransientStatus(error.status)
  );
}

/**
 * The one rule behind every automatic retry (the client's calls, the element's files and
 * its part PUTs): 0 (no answer), 408, 429 and 5xx may work a little later.
 */
export function isTransientStatus(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status >= 500;
}
