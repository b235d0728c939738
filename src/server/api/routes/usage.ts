import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { authenticate } from '../../rules/auth.js';
import { projectQuota, usageAnswer } from '../../rules/quota.js';

/** `GET /v1/usage` (secret key): what the project holds now, exact, and its limits. */
export async function usageHandler(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { secretOnly: true });
  const usage = await ctx.db.usage(caller.project.id, ctx.now());
  reply.header('Cache-Control', 'no-store').send(usageAnswer(usage, projectQuota(caller.project)));
}
