import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventListResponse, EventRecord } from '../../../api/events.js';
import type { FileRecord } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import type { EventRow } from '../../db/metadata-store.js';
import { fail } from '../../ground/errors.js';
import { authenticate } from '../../rules/auth.js';
import { formatCursor, parseListQuery } from '../list-cursor.js';

/**
 * `GET /v1/events` (secret key): the project's events of the last 30 days, newest first,
 * paged like `/v1/files`, each with how its deliveries stand, so that a backend can catch
 * up by polling as well.
 */
export async function listEventsHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Querystring: Record<string, unknown> }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { secretOnly: true });
  const { after, limit } = parseListQuery(request.query);
  const rows = await ctx.db.listEvents(caller.project.id, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const answer: EventListResponse = {
    events: page.map(toEventRecord),
    nextCursor: rows.length > limit && last ? formatCursor(last) : null,
  };
  reply.header('Cache-Control', 'no-store').send(answer);
}

/** `POST /v1/events/:id/redeliver` (secret key): queued again for every endpoint, `202`. */
export async function redeliverEventHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { secretOnly: true });
  if (!(await ctx.db.redeliverEvent(caller.project.id, request.params.id, ctx.now()))) {
    fail('not_found', 'No event with this id.');
  }
  ctx.events.kick();
  reply.code(202).send();
}

function toEventRecord(row: EventRow): EventRecord {
  return {
    id: row.id,
    type: row.type,
    timestamp: new Date(row.createdAt).toISOString(),
    data: row.data as FileRecord,
    deliveries: row.deliveries,
  };
}
