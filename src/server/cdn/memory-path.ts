import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
// Imported, not the global: `globalThis.performance` is a getter Node runs on every read.
import { performance } from 'node:perf_hooks';
import type { FastifyServerFactory, FastifyServerOptions } from 'fastify';
import { ID_PATTERN } from '../../api/routes.js';
import type { ServingCache } from '../cache/serving-cache.js';
import { refusedRequest } from '../http/request-guard.js';
import { requestIdOf } from '../http/request-id.js';
import { countCdnAnswer, countMemoryAnswer } from '../metrics/cdn-traffic.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { withRequestId } from './answer-head.js';

/**
 * `/<id>` or `/<id>/<name>`, nothing percent-encoded and no query: the only URLs answered
 * here. Anything else (and an id of another shape: `ID_PATTERN` without its anchors) goes
 * through the framework's routes.
 */
const PLAIN_FILE_URL = new RegExp(`^/(${ID_PATTERN.source.slice(1, -1)})(?:/[^%?]*)?$`);

/**
 * The id a URL of the plain shape names, as the CDN's routes read it (up to the next `/`,
 * which no id holds); null for any other URL. Tested rather than matched: no match array
 * is made on every request.
 */
export function plainFileId(url: string): string | null {
  if (!PLAIN_FILE_URL.test(url)) return null;
  const nameAt = url.indexOf('/', 1);
  return nameAt === -1 ? url.slice(1) : url.slice(1, nameAt);
}

/**
 * The CDN's hot path: a plain GET of a small file the serving cache holds (bytes and
 * headers, `cache/serving-cache.ts`) is answered straight from `node:http`, before the
 * framework's routing, hooks and reply objects. Those cost more than the answer itself:
 * a 1 KiB file from memory went at about half the rate the same bytes go from a bare
 * `node:http` handler (README, `bench:serving`).
 *
 * Taken only when nothing about the request needs deciding: a GET, a URL of the plain
 * shape (or exactly the URL a small image variant was first asked by, which the cache then
 * holds under that URL), no Range or conditional headers, nothing the request guard would refuse, a
 * server still listening (closing, the framework answers 503), and a cache that may
 * answer without the database (the embedded deployment: at scale another instance may
 * have deleted the file, so every request asks the database there). The answer is the
 * one the framework's route gives for the same request: the cached headers and bytes.
 * Returns the bytes it sent; null, having written nothing, for every other request.
 */
export function answerFromMemory(
  cache: ServingCache,
  request: IncomingMessage,
  response: ServerResponse,
): Buffer | null {
  if (request.method !== 'GET' || !cache.options.trustRecords) return null;
  const url = request.url ?? '';
  // A URL with a query is a key of its own: the cache holds one only for an image variant
  // that needs nothing decided (`variants/variant-response.ts`), under the URL it was asked by.
  const key = plainFileId(url) ?? (url.includes('?') ? url : null);
  if (key === null) return null;
  const asked = request.headers;
  if (
    asked.range !== undefined ||
    asked['if-none-match'] !== undefined ||
    asked['if-modified-since'] !== undefined ||
    refusedRequest(request) !== null
  ) {
    return null;
  }
  const file = cache.get(key);
  // Private files are never cached (cdn.ts); should one be, it is still not answered here,
  // where no link is checked.
  if (!file?.bytes || !file.wholeHead || file.row.visibility !== 'public') return null;
  // Named as the framework names a request (`server-options.ts`); no log line is written here.
  response.writeHead(200, withRequestId(file.wholeHead, requestIdOf(asked['x-request-id'])));
  response.end(file.bytes);
  file.served?.();
  return file.bytes;
}

/**
 * The direct path (`direct-path.ts`): null when it does not take the request; else whether
 * it answered (false: it wrote nothing, and the framework answers).
 */
export type DirectAnswer = (
  request: IncomingMessage,
  response: ServerResponse,
) => Promise<boolean> | null;

/**
 * The CDN's HTTP server: the framework's handler behind `answerFromMemory` and then
 * `direct` (when given), with the timeouts the
 * framework would set on a server of its own (a server factory replaces that setup), and
 * with `metrics`, every answer counted (`metrics/cdn-traffic.ts`).
 *
 * The idle timeout (`connectionTimeout`) is the one `server.setTimeout` sets, armed by hand
 * where it can matter: on a new connection (as `node:http` does), on every request that
 * goes on past the memory path, and on a memory answer only when its bytes did not all go
 * to the kernel at once. Set on the server, `node:http` re-arms it for every request on a
 * kept-alive connection and refreshes it on every write: at 1 KiB from memory that
 * bookkeeping was a sixth of the CPU time the answer costs beyond plain `node:http`'s
 * (a CPU profile, test/bench/README.md). Between requests the keep-alive timeout holds.
 */
export function cdnServerFactory(
  cache: ServingCache,
  options: Pick<FastifyServerOptions, 'keepAliveTimeout' | 'requestTimeout' | 'connectionTimeout'>,
  direct?: DirectAnswer,
  metrics?: ServiceMetrics | null,
): FastifyServerFactory {
  const idleMs = options.connectionTimeout ?? 0;
  // A bench may take these parts out (`metrics/bench-ablation.ts`); decided once, not per answer.
  const countsMemory = metrics && !metrics.without.has('memory-count') ? metrics : null;
  const timed = metrics ? !metrics.without.has('clock') : false;
  return (handler) => {
    const server: Server = createServer((request, response) => {
      const startedAt = timed ? performance.now() : null;
      const sent = server.listening ? answerFromMemory(cache, request, response) : null;
      if (sent) {
        if (countsMemory) {
          countMemoryAnswer(countsMemory, request.url as string, sent.length, startedAt);
        }
        // Still queued here: a client slow to read must not hold the connection forever.
        if (idleMs > 0 && request.socket.writableLength > 0) request.socket.setTimeout(idleMs);
        return;
      }
      if (idleMs > 0) request.socket.setTimeout(idleMs);
      if (metrics) countCdnAnswer(metrics, request, response, startedAt);
      // Closing, the framework answers 503.
      const answering = server.listening ? direct?.(request, response) : null;
      if (!answering) {
        handler(request, response);
        return;
      }
      answering.then(
        (answered) => {
          if (!answered) handler(request, response);
        },
        () => handler(request, response),
      );
    });
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    if (idleMs > 0) server.on('connection', (socket: Socket) => socket.setTimeout(idleMs));
    return server;
  };
}
