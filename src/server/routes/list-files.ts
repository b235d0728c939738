import type { FastifyReply, FastifyRequest } from 'fastify';
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from '../../api/limits.js';
import { CURSOR_PATTERN } from '../../api/routes.js';
import type { FileListResponse } from '../../api/types.js';
import { authenticate } from '../auth.js';
import type { ServiceContext } from '../context.js';
import type { ListPosition } from '../db/metadata-store.js';
import { fail } from '../errors.js';
import { toFileRecord } from '../records.js';

/** `GET /v1/files`: keyset paging, newest first; `nextCursor` is null exactly at the end. */
export async function listFilesHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Querystring: Record<string, unknown> }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request);
  const limit = parseLimit(request.query.limit);
  const after = parseCursor(request.query.cursor);
  // One row more than asked tells whether anything remains after this page.
  const rows = await ctx.db.listFiles(caller.project.id, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const body: FileListResponse = {
    files: page.map((row) => toFileRecord(ctx, row)),
    nextCursor: rows.length > limit && last ? `${last.createdAt}_${last.id}` : null,
  };
  reply.send(body);
}

function parseLimit(value: unknown): number {
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

function parseCursor(value: unknown): ListPosition | null {
  if (value === undefined || value === '') return null;
  const match = typeof value === 'string' ? CURSOR_PATTERN.exec(value) : null;
  if (!match) {
    fail('invalid_request', 'cursor is not a nextCursor value returned by this endpoint.');
  }
  const createdAt = Number(match[1]);
  if (!Number.isSafeInteger(createdAt)) fail('invalid_request', 'cursor is out of range.');
  return { createdAt, id: match[2] as string };
}
