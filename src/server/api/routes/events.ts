import type { EventListResponse, EventRecord } from '../../../api/events.js';
import type { FileRecord } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import type { EventRow } from '../../db/metadata-store.js';
import { fail } from '../../ground/errors.js';
import { formatCursor, type ListQuery, listPage } from '../list-cursor.js';
import type { RouteInput } from '../route-input.js';

/**
 * `GET /v1/events` (secret key): the project's events of the last 30 days, newest first,
 * paged like `/v1/files`, each with how its deliveries stand, so that a backend can catch
 * up by polling as well.
 */
export async function listEventsHandler(
  ctx: ServiceContext,
  { reply, caller, query }: RouteInput<'listEvents', unknown, ListQuery>,
): Promise<void> {
  const { after, limit } = listPage(query);
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
  { request, reply, caller }: RouteInput<'redeliverEvent', { id: string }>,
): Promise<void> {
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
