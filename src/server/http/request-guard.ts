import type { IncomingMessage } from 'node:http';
import { UPLOAD_TOKEN_HEADER } from '../../api/routes.js';
import { ServiceError } from '../ground/errors.js';

/** A request URL longer than this is `414 uri_too_long` (README, hostile input). */
export const MAX_URL_BYTES = 8 * 1024;

/**
 * Headers that may appear once. Node keeps the first of a repeated `Authorization` or
 * `Content-Type` and silently drops the rest, so a request that says two different things
 * would be read as whichever came first; it is refused instead.
 */
const SINGLETON_HEADERS = new Set([
  'authorization',
  'content-type',
  'content-length',
  'x-filename',
  'x-metadata',
  'range',
  UPLOAD_TOKEN_HEADER.toLowerCase(),
  // The credential of a part PUT to the shared part URL (see local-disk/part-signer.ts).
  'x-filehost-upload',
  'x-filehost-part',
  'x-filehost-expires',
  'x-filehost-signature',
  'x-filehost-checksum',
]);

/**
 * What both the API and the CDN refuse before any route runs, in the documented shape:
 * an over-long URL, a singleton header sent twice. Null when the request may go on.
 */
export function refusedRequest(request: IncomingMessage): ServiceError | null {
  const url = request.url ?? '';
  // A character is at most 3 bytes of UTF-8: most URLs need no count.
  if (url.length > MAX_URL_BYTES / 3 && Buffer.byteLength(url) > MAX_URL_BYTES) {
    return new ServiceError('uri_too_long');
  }
  const raw = request.rawHeaders;
  // Node files every header under its lower-cased name, a repeated one under one name: with
  // as many names as headers sent, no name came twice. Lower-casing every name sent (below)
  // cost a browser's request of a dozen headers more than the rest of a memory answer's
  // checks (test/bench/README.md, "cdn-process").
  if (Object.keys(request.headers).length * 2 === raw.length) return null;
  // Made at the first singleton header only: most CDN requests carry none, and this runs
  // on every request of both servers.
  let seen: Set<string> | undefined;
  for (let index = 0; index < raw.length; index += 2) {
    const name = (raw[index] as string).toLowerCase();
    if (!SINGLETON_HEADERS.has(name)) continue;
    if (seen?.has(name)) {
      return new ServiceError('invalid_request', `Send the ${raw[index]} header once.`);
    }
    seen ??= new Set();
    seen.add(name);
  }
  return null;
}
