import type { EventType } from '../../api/events.js';
import { toFileRecord } from '../api/records.js';
import type { ServiceContext } from '../context.js';
import type { EventDraft } from '../db/metadata-store.js';
import { newId } from '../secrets.js';

/**
 * The event of a change to a file, for the store to record in the change's transaction:
 * its data is the file record as `GET /v1/files/:id` answers it, made from the row the
 * change touched.
 */
export function fileEvent(ctx: ServiceContext, type: EventType): EventDraft {
  return {
    id: newId('evt_'),
    type,
    at: ctx.now(),
    data: (row) => toFileRecord(ctx, row),
  };
}
