import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { probeStores } from './readiness.js';

/**
 * `GET /healthz`, on the API and the CDN: the process runs and its event loop answers. It
 * asks no store, so a load balancer never restarts an instance for its database's sake.
 */
export async function healthzHandler(
  _ctx: ServiceContext,
  _request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  reply.header('Cache-Control', 'no-store').send({ status: 'ok' });
}

/**
 * `GET /readyz`, on the API and the CDN: `200` when the database took a write-capable
 * probe and the storage answered one, each within 1 s; else `503` naming which did not,
 * so a load balancer sends this instance nothing until they answer again. From SIGTERM
 * on, `503` naming none (`start/draining.ts`): the instance is stopping, not failing.
 */
export async function readyzHandler(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  if (ctx.draining()) {
    reply.code(503).header('Cache-Control', 'no-store').send({ status: 'draining', failing: [] });
    return;
  }
  const readiness = await probeStores(ctx);
  if (!readiness.ready) {
    request.log.warn({ failing: readiness.failing, reasons: readiness.reasons }, 'not ready');
  }
  reply
    .code(readiness.ready ? 200 : 503)
    .header('Cache-Control', 'no-store')
    .send({ status: readiness.ready ? 'ready' : 'unready', failing: readiness.failing });
}
