import type { EventType } from '../../api/events.js';
import type { EventDraft } from '../db/metadata-store.js';
import { newId } from '../ground/secrets.js';
import type { CoreContext } from '../rules/context.js';
import { toFileRecord } from '../rules/records.js';

/** Why a file was deleted (`file.deleted`'s `reason`): a `DELETE`, or its `deleteAt` came. */
export type DeleteReason = 'deleted' | 'expired';

/**
 * The event of a change to a file, for the store to record in the change's transaction:
 * its data is the file record as `GET /v1/files/:id` answers it, made from the row the
 * change touched; a `file.deleted` event's data also says why (`reason`).
 */
export function fileEvent(ctx: CoreContext, type: EventType, reason?: DeleteReason): EventDraft {
  return {
    id: newId('evt_'),
    type,
    at: ctx.now(),
    data: (row) =>
      reason === undefined ? toFileRecord(ctx, row) : { ...toFileRecord(ctx, row), reason },
  };
}
