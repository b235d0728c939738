import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FileListResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { authenticate } from '../../rules/auth.js';
import { toFileRecord } from '../../rules/records.js';
import { formatCursor, parseListQuery } from '../list-cursor.js';

/** `GET /v1/files`: keyset paging, newest first; `nextCursor` is null exactly at the end. */
export async function listFilesHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Querystring: Record<string, unknown> }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request);
  const { after, limit } = parseListQuery(request.query);
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
