import type { ByteRange } from '../blob-store.js';

/**
 * How a range of an object is asked of the bucket, and which answers carry exactly its
 * bytes: one rule for both ways `RangeReader` reads (its kept-alive connections and its
 * `node:http` requests), so that what one relays the other would too.
 */

/**
 * The `Range` header of a GET of `range`; none for the whole object (`ByteRange.whole`),
 * which costs the gateway less to answer (test/bench/README.md, "cdn-scale2") and comes as
 * a 200 of the same bytes.
 */
export function rangeHeader(range: ByteRange): string | null {
  return range.whole ? null : `bytes=${range.start}-${range.end}`;
}

/** What of an answer's head decides whether its body is the range asked. */
export interface RangeAnswerHead {
  status: number;
  /** `Content-Length`; null when absent. */
  length: number | null;
  /** `Content-Range`; null when absent. */
  contentRange: string | null;
}

/**
 * Whether the answer to a GET of `range` (`rangeHeader`) is the range's bytes and no
 * others, to be relayed as they arrive: its length is the range's, and it is either a 206
 * of exactly that range or a 200 of a whole object read from its first byte (asked without
 * `Range`, or a bucket that ignored it), which, being the range's length, is the range.
 * Anything else (an object shorter or longer than the caller thinks, a range cut at the
 * object's end, another range) is not relayed.
 */
export function carriesRange(range: ByteRange, answer: RangeAnswerHead): boolean {
  if (answer.length !== range.end - range.start + 1) return false;
  if (answer.status === 200) return range.start === 0;
  return (
    answer.status === 206 &&
    answer.contentRange?.startsWith(`bytes ${range.start}-${range.end}/`) === true
  );
}
