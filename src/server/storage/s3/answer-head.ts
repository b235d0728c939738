/**
 * The head of an HTTP/1.1 answer, as far as relaying its body needs it: the status, the
 * body's length and range when the answer gives them, and whether the connection may carry
 * the next request. Only the bucket's answers to our own GETs are read this way
 * (`bucket-connections.ts`); whatever this parser does not understand is not relayed by that
 * path (`relayable`), so it can stay strict and small.
 */
export interface AnswerHead {
  status: number;
  /** `Content-Length`; null when absent. */
  length: number | null;
  /** `Content-Range`; null when absent (`range-answer.ts` reads it). */
  contentRange: string | null;
  /** A `Transfer-Encoding` was given: the body is framed otherwise than by its length. */
  encoded: boolean;
  /** The connection stays open after this answer (HTTP/1.1 without `Connection: close`). */
  keepAlive: boolean;
  /** Bytes of the head, its blank line included: the body starts here. */
  size: number;
}

/** A head this long without its end is not an S3 answer's (S3's are well under 2 KiB). */
export const MAX_HEAD_BYTES = 16 * 1024;

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

/**
 * The head at the start of `bytes`: null while its blank line has not arrived yet; an
 * `Error` for bytes that are not an HTTP/1.x answer head (or one longer than
 * `MAX_HEAD_BYTES`).
 */
export function parseAnswerHead(bytes: Buffer): AnswerHead | Error | null {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) {
    return bytes.length >= MAX_HEAD_BYTES ? new Error('The answer head is too long') : null;
  }
  if (end + 4 > MAX_HEAD_BYTES) return new Error('The answer head is too long');
  const lines = bytes.toString('latin1', 0, end).split('\r\n');
  const status = STATUS_LINE.exec(lines[0] ?? '');
  if (!status) return new Error('Not an HTTP/1.x answer');
  let length: number | null = null;
  let contentRange: string | null = null;
  let encoded = false;
  let keepAlive = status[1] === '1';
  for (const line of lines.slice(1)) {
    const header = HEADER_LINE.exec(line);
    if (!header) return new Error('A malformed header line in the answer');
    const name = (header[1] as string).toLowerCase();
    const value = header[2] as string;
    if (name === 'content-length') {
      if (!/^\d{1,15}$/.test(value)) return new Error('A malformed Content-Length');
      const given = Number(value);
      if (length !== null && length !== given) return new Error('Two Content-Lengths');
      length = given;
    } else if (name === 'content-range') {
      contentRange = value;
    } else if (name === 'transfer-encoding') {
      encoded = true;
    } else if (name === 'connection') {
      const options = value.toLowerCase().split(/[ \t]*,[ \t]*/);
      if (options.includes('close')) keepAlive = false;
      else if (options.includes('keep-alive')) keepAlive = true;
    }
  }
  return { status: Number(status[2]), length, contentRange, encoded, keepAlive, size: end + 4 };
}
