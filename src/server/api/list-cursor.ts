import { LIST_DEFAULT_LIMIT } from '../../api/limits.js';
import { CURSOR_PATTERN } from '../../api/routes.js';
import { declaredRoute } from '../contract-reader/contract.js';
import type { ListPosition } from '../db/metadata-store.js';
import { fail } from '../ground/errors.js';
import { queryCheck } from '../http/declared-input.js';

/** The `nextCursor` of a listing page: where the next page starts, `<createdAt>_<id>`. */
export function formatCursor(position: ListPosition): string {
  return `${position.createdAt}_${position.id}`;
}

/**
 * The paging parameters, as `GET /v1/files` and `GET /v1/events` declare them; the route
 * table hands a listing's handler its query checked against them.
 */
export interface ListQuery {
  readonly cursor?: string;
  readonly limit?: number;
}

/**
 * A listing's page from its query (of its declared form; clients treat cursors as
 * opaque): where the page starts (null: the first page) and how many rows it holds (50
 * when not asked).
 */
export function listPage({ cursor, limit = LIST_DEFAULT_LIMIT }: ListQuery): {
  after: ListPosition | null;
  limit: number;
} {
  return { after: cursor === undefined ? null : position(cursor), limit: Number(limit) };
}

let checkListQuery: ((query: unknown) => ListQuery) | undefined;

/**
 * A cursor alone, checked as a listing's query is (`400 invalid_request` when not of the
 * declared form): null for none.
 */
export function parseCursor(value: unknown): ListPosition | null {
  checkListQuery ??= queryCheck(declaredRoute('listFiles'));
  return listPage(checkListQuery({ cursor: value })).after;
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
