import { LIST_DEFAULT_LIMIT } from '../../api/limits.js';
import { CURSOR_PATTERN } from '../../api/routes.js';
import type { ListPosition } from '../db/metadata-store.js';
import { sharedParameter } from '../http/contract.js';
import { fail } from '../http/errors.js';
import { checkQuery, querySchema } from '../http/validate.js';

/** The `nextCursor` of a listing page: where the next page starts, `<createdAt>_<id>`. */
export function formatCursor(position: ListPosition): string {
  return `${position.createdAt}_${position.id}`;
}

/** The paging parameters, as `GET /v1/files` and `GET /v1/events` declare them. */
const LIST_QUERY = querySchema<{ cursor?: string; limit?: number }>([
  sharedParameter('Cursor'),
  sharedParameter('Limit'),
]);

/**
 * A listing's `cursor` and `limit`, of their declared form (`400 invalid_request`
 * otherwise; clients treat cursors as opaque): where the page starts (null: the first
 * page) and how many rows it holds (50 when not asked).
 */
export function parseListQuery(query: unknown): { after: ListPosition | null; limit: number } {
  const { cursor, limit = LIST_DEFAULT_LIMIT } = checkQuery(LIST_QUERY, query);
  return { after: cursor === undefined ? null : position(cursor), limit: Number(limit) };
}

/** A cursor alone, as `parseListQuery` reads it: null for none. */
export function parseCursor(value: unknown): ListPosition | null {
  return parseListQuery({ cursor: value }).after;
}

/** The position a cursor of the declared form names. */
function position(cursor: unknown): ListPosition {
  const match = CURSOR_PATTERN.exec(String(cursor));
  const createdAt = Number(match?.[1]);
  // Sixteen digits may pass 2^53: no time this service wrote.
  if (!match || !Number.isSafeInteger(createdAt))
    fail('invalid_request', 'cursor is out of range.');
  return { createdAt, id: match[2] as string };
}
