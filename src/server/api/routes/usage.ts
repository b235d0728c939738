import type { ServiceContext } from '../../context.js';
import { projectQuota, usageAnswer } from '../../rules/quota.js';
import type { RouteInput } from '../route-input.js';

/** `GET /v1/usage` (secret key): what the project holds now, exact, and its limits. */
export async function usageHandler(
  ctx: ServiceContext,
  { reply, caller }: RouteInput<'usage'>,
): Promise<void> {
  const usage = await ctx.db.usage(caller.project.id, ctx.now());
  reply.header('Cache-Control', 'no-store').send(usageAnswer(usage, projectQuota(caller.project)));
}
