import type { IncomingMessage, ServerResponse } from 'node:http';
// Imported, not the global: `globalThis.performance` is a getter Node runs on every read.
import { performance } from 'node:perf_hooks';
import { UNMATCHED_ROUTE } from './http-traffic.js';
import type { ServiceMetrics } from './service-metrics.js';

/**
 * The CDN's route template for a request, as its router would take it (`cdn.ts`): `/:id`,
 * `/:id/*` (a name after the id), or `unmatched` (no route: another method, or no id).
 * Read from the URL without building a string: the memory path calls this on every answer.
 */
export function cdnRoute(method: string | undefined, url: string): string {
  if ((method !== 'GET' && method !== 'HEAD') || url.charCodeAt(0) !== 47 /* / */) {
    return UNMATCHED_ROUTE;
  }
  const query = url.indexOf('?');
  const end = query === -1 ? url.length : query;
  const slash = url.indexOf('/', 1);
  if (slash === 1 || end === 1) return UNMATCHED_ROUTE;
  return slash === -1 || slash >= end ? '/:id' : '/:id/*';
}

/**
 * An answer of the memory path (`memory-path.ts`): a `200` GET of `bytes` from memory, begun
 * at `startedAt` (`performance.now()`; null: not timed, counted as taking 0 s).
 */
export function countMemoryAnswer(
  metrics: ServiceMetrics,
  url: string,
  bytes: number,
  startedAt: number | null,
): void {
  metrics.http.answered('cdn', cdnRoute('GET', url), 'GET', 200, answerSeconds(startedAt));
  metrics.cdnServedBytes += bytes;
  metrics.cdnCacheHits++;
}

/**
 * Any other CDN answer (the direct path's or the routes'), counted once it has ended: its
 * last byte handed to the connection, or the connection gone. A request that went before
 * any answer was begun is not counted.
 */
export function countCdnAnswer(
  metrics: ServiceMetrics,
  request: IncomingMessage,
  response: ServerResponse,
  startedAt: number | null,
): void {
  response.once('close', () => {
    if (!response.headersSent) return;
    const method = request.method ?? 'GET';
    metrics.http.answered(
      'cdn',
      cdnRoute(method, request.url ?? ''),
      method,
      response.statusCode,
      answerSeconds(startedAt),
    );
  });
}

/** The body of a file or variant answer the CDN began to send: `range` of `size` or all. */
export function countServedBody(
  metrics: ServiceMetrics | null,
  range: { start: number; end: number } | null,
  size: number,
): void {
  if (metrics) metrics.cdnServedBytes += range ? range.end - range.start + 1 : size;
}

/** Seconds since `startedAt` (`performance.now()`); 0 when not timed (`bench-ablation.ts`'s `clock`). */
function answerSeconds(startedAt: number | null): number {
  return startedAt === null ? 0 : (performance.now() - startedAt) / 1000;
}
