/** What a `Range` header asks of a representation of `size` bytes, as RFC 9110 §14 reads it. */
export type RangeAnswer =
  | { kind: 'whole' }
  | { kind: 'unsatisfiable' }
  | { kind: 'range'; start: number; end: number };

const WHOLE: RangeAnswer = { kind: 'whole' };
const UNSATISFIABLE: RangeAnswer = { kind: 'unsatisfiable' };

/**
 * One byte range (`a-b`, `a-`, `-n`), as RFC 9110 reads it: a suffix longer than the file
 * is the whole file (range-parser, used before, answered 416), an end past the file is cut
 * at its end, only a start past the end is unsatisfiable (416). A header this server does
 * not serve (another unit, several ranges, malformed, `last < first`) is ignored: the
 * whole file is the answer, as the RFC allows.
 */
export function parseRange(header: string, size: number): RangeAnswer {
  const match = /^\s*bytes\s*=\s*(\d*)-(\d*)\s*$/i.exec(header);
  if (!match) return WHOLE;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return WHOLE;
  if (first === '') {
    // A suffix: the last n bytes, or all of them when there are fewer.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return UNSATISFIABLE;
    return { kind: 'range', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return WHOLE;
  if (start >= size) return UNSATISFIABLE;
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: 'range', start, end };
}
