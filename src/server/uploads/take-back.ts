import type { FileRow } from '../db/metadata-store.js';
import { MetadataUnavailableError } from '../db/unavailable.js';
import { removeFile } from '../files/remove.js';
import type { Caller } from '../rules/auth.js';
import type { CoreContext } from '../rules/context.js';

/**
 * The waits between tries of a take-back the database did not answer: about 8 s in all,
 * each try bounded by the store's own timeout. A database busy for a moment (a saturated
 * pool, a held lock) answers within them; one that is down longer leaves the rest to the
 * sweeper.
 */
export const TAKE_BACK_WAITS_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000];

/**
 * Takes back the pending uploads a sign made before it failed (the rows reserved, perhaps
 * their multipart uploads): each row is removed, so it stops counting as pending at once,
 * and its multipart upload is aborted. Called before the sign's failure is answered: the
 * client that hears 503 signs again, and nothing would ever complete the uploads it was
 * never told of. A removal the database refuses for a moment (it is often the very fault
 * that failed the sign) is tried again after `waits`; only what is still refused after
 * them is left to the sweeper, which removes a pending row once it expires. Never throws:
 * the sign's own failure is what the client hears.
 */
export async function takeBackSigned(
  ctx: CoreContext,
  caller: Caller,
  made: Pick<FileRow, 'id' | 'storageUploadId'>[],
  waits: readonly number[] = TAKE_BACK_WAITS_MS,
): Promise<void> {
  await Promise.all(made.map((upload) => takeBackOne(ctx, caller, upload, waits)));
}

async function takeBackOne(
  ctx: CoreContext,
  caller: Caller,
  { id, storageUploadId }: Pick<FileRow, 'id' | 'storageUploadId'>,
  waits: readonly number[],
): Promise<void> {
  // A multipart upload whose row is not there (never inserted) is aborted by itself.
  const abortAlone = () =>
    storageUploadId === null ? undefined : ctx.blobs.delete(id, storageUploadId);
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await removeFile(ctx, caller.project.id, id, { storageUploadId });
      if (!row) await abortAlone();
      return;
    } catch (error) {
      const wait = waits[attempt];
      if (error instanceof MetadataUnavailableError && wait !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      ctx.log.warn({ err: error, id }, 'a failed sign left an upload for the sweeper');
      // The database is what failed: the multipart upload can still go now.
      await Promise.resolve()
        .then(abortAlone)
        .catch(() => undefined);
      return;
    }
  }
}
