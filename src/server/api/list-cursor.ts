import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from '../../api/limits.js';
import { CURSOR_PATTERN } from '../../api/routes.js';
import type { ListPosition } from '../db/metadata-store.js';
import { fail } from '../http/errors.js';

/** The `nextCursor` of a listing page: where the next page starts, `<createdAt>_<id>`. */
export function formatCursor(position: ListPosition): string {
  return `${position.createdAt}_${position.id}`;
}

/**
 * A cursor from a client: null for none, the position it names, or `400 invalid_request`
 * for anything this service never wrote (clients treat cursors as opaque).
 */
export function parseCursor(value: unknown): ListPosition | null {
  if (value === undefined || value === '') return null;
  const match = typeof value === 'string' ? CURSOR_PATTERN.exec(value) : null;
  if (!match) {
    fail('invalid_request', 'cursor is not a nextCursor value returned by this endpoint.');
  }
  const createdAt = Number(match[1]);
  if (!Number.isSafeInteger(createdAt)) fail('invalid_request', 'cursor is out of range.');
  return { createdAt, id: match[2] as string };
}

/** A page's `limit` from a client: 1 to 100, 50 when absent. */
export function parseListLimit(value: unknown): number {
  if (value === undefined || value === '') return LIST_DEFAULT_LIMIT;
  if (typeof value !== 'string' || !/^\d{1,4}$/.test(value)) {
    fail('invalid_request', `limit must be a whole number from 1 to ${LIST_MAX_LIMIT}.`);
  }
  const limit = Number(value);
  if (limit < 1 || limit > LIST_MAX_LIMIT) {
    fail('invalid_request', `limit must be a whole number from 1 to ${LIST_MAX_LIMIT}.`);
  }
  return limit;
}
