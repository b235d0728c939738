import type { IncomingHttpHeaders } from 'node:http';
import fresh from 'fresh';
import type { ByteRange } from '../storage/blob-store.js';
import { parseRange } from './byte-range.js';

/**
 * What the CDN answers a GET or HEAD of something it serves (a file, or a variant), given
 * the request's headers and the representation's size and headers: `304` when a validator
 * matches, `416` for a range past the end, else `200` or `206` with the bytes of `range`.
 * The headers are complete (length and `Content-Range` included), in an object of the
 * answer's own that the caller may add to. One decision, so every path that answers (the
 * routes, the direct path) answers alike.
 */
export type FileAnswer =
  | { status: 304; headers: Record<string, string> }
  | { status: 416; headers: Record<string, string> }
  | { status: 200 | 206; headers: Record<string, string>; range: ByteRange | null };

export function fileAnswer(
  request: IncomingHttpHeaders,
  size: number,
  headers: Record<string, string>,
): FileAnswer {
  // Only the validators are passed: `fresh` reads `Cache-Control: no-cache` as "never
  // 304", but fetch() adds exactly that to every request with If-None-Match, and this
  // server is the origin the revalidation is meant to reach.
  const ifNoneMatch = request['if-none-match'];
  const ifModifiedSince = request['if-modified-since'];
  if (
    (ifNoneMatch !== undefined || ifModifiedSince !== undefined) &&
    fresh(
      { 'if-none-match': ifNoneMatch, 'if-modified-since': ifModifiedSince },
      { etag: headers.etag, 'last-modified': headers['last-modified'] },
    )
  ) {
    return { status: 304, headers: { ...headers } };
  }
  const rangeHeader = request.range;
  if (
    typeof rangeHeader === 'string' &&
    rangeApplies(request['if-range'], headers.etag, headers['last-modified'])
  ) {
    const asked = parseRange(rangeHeader, size);
    if (asked.kind === 'unsatisfiable') {
      return { status: 416, headers: { ...headers, 'content-range': `bytes */${size}` } };
    }
    if (asked.kind === 'range') {
      const { start, end } = asked;
      return {
        status: 206,
        headers: {
          ...headers,
          'content-length': String(end - start + 1),
          'content-range': `bytes ${start}-${end}/${size}`,
        },
        range: { start, end },
      };
    }
  }
  return { status: 200, headers: { ...headers, 'content-length': String(size) }, range: null };
}

/** `If-Range` with a validator that no longer matches means "send the whole thing". */
function rangeApplies(
  ifRange: string | string[] | undefined,
  etag: string | undefined,
  lastModified: string | undefined,
): boolean {
  if (ifRange === undefined) return true;
  if (typeof ifRange !== 'string') return false;
  return ifRange.trim() === etag || ifRange.trim() === lastModified;
}
