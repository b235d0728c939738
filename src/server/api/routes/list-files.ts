import type { FastifyReply, FastifyRequest } from 'fastify';
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from '../../../api/limits.js';
import type { FileListResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { fail } from '../../http/errors.js';
import { authenticate } from '../auth.js';
import { formatCursor, parseCursor } from '../list-cursor.js';
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
    nextCursor: rows.length > limit && last ? formatCursor(last) : null,
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
