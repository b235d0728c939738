import type { CoreContext } from '../rules/context.js';

/**
 * Takes back a one-request upload that will not become a file (its request failed, or its
 * receiving instance died): its bytes, then its row, which was never visible.
 */
export async function abortReceiving(ctx: CoreContext, id: string): Promise<void> {
  await ctx.blobs.delete(id);
  await ctx.db.discardReceiving(id);
}
