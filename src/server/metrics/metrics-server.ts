import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceMetrics } from './service-metrics.js';

export interface MetricsServer {
  /** `http://host:port`, as bound (a port of 0 picks a free one). */
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in Prometheus' text format on a port of its own (`FILEHOST_METRICS_PORT`),
 * bound to `host` (`FILEHOST_METRICS_HOST`, loopback by default): no key is asked, so it
 * is reachable only where the operator binds it, never through the API's or the CDN's
 * port. Anything else is `404`; a method other than GET or HEAD, `405`.
 */
export async function serveMetrics(
  metrics: ServiceMetrics,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only /metrics is here.\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    metrics.scrape().then(
      ({ body, contentType }) => {
        response.writeHead(200, {
          'content-type': contentType,
          'cache-control': 'no-store',
          // A string, as every other header value the service's servers send: a number
          // among them, checked by `node:http`'s shared code (a regular expression's `test`),
          // left that code optimised for any value, and every CDN answer's header checks took
          // V8's generic path after the first scrape: 1,944 instructions an answer, 7 with a
          // string (test/bench/README.md, "cdn-instructions").
          'content-length': String(Buffer.byteLength(body)),
        });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`The metrics could not be collected: ${(error as Error).message}\n`);
      },
    );
  });
  // A scrape is one short request; a kept-alive scraper's connection must not hold a close.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
