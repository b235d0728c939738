import type { FastifyInstance } from 'fastify';
import { newBytesRead, UNMATCHED_ROUTE } from './http-traffic.js';
import type { ServiceMetrics } from './service-metrics.js';

/**
 * Counts every answer of the API (`filehost_http_*{server="api"}`) by its route template
 * (fastify's `routeOptions.url`: `/v1/files/:id`, never the URL), and the bytes read from
 * its connections. A request no route took (a 404) is `unmatched`.
 */
export function countApiTraffic(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.http.answered(
      'api',
      request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE),
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    metrics.apiReceivedBytes += newBytesRead(request.raw.socket);
    done();
  });
}
