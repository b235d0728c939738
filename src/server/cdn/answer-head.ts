import { REQUEST_ID_HEADER } from '../http/request-id.js';

/**
 * The headers of a `200` the memory path sends (`memory-path.ts`), made once per cached
 * entry: the entry's headers and its length as a flat list of names and values, ending with
 * a slot for the request's id (`withRequestId`). `node:http` writes such a list into the
 * answer's head as given. A header set on its own (`setHeader`) before `writeHead` instead
 * makes `writeHead` pass every header of its object through `setHeader` again (checked,
 * lower-cased, stored pair by pair), which cost more than the rest of a memory answer's own
 * work (test/bench/README.md).
 *
 * The length comes after `Content-Disposition`: `node:http` copies a disposition that
 * follows a known length into a buffer first.
 */
export function answerHead(headers: Record<string, string>, length: number): string[] {
  const list: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'content-length') list.push(name, value);
  }
  list.push('content-length', String(length), REQUEST_ID_HEADER, '');
  return list;
}

/**
 * `head` (from `answerHead`) with `requestId` in its last slot, for a `writeHead` that
 * follows at once: `writeHead` reads the list while it runs and keeps nothing of it, and
 * nothing runs between the two on the one thread, so one list per entry serves every
 * request.
 */
export function withRequestId(head: string[], requestId: string): string[] {
  head[head.length - 1] = requestId;
  return head;
}
