import type { Worker } from 'node:worker_threads';
import { moduleWorker } from '../ground/module-worker.js';
import { portInUseMessage, StartupError } from '../ground/startup-error.js';
import type { FromMetricsPort, ToMetricsPort } from './metrics-port-messages.js';
import type { ServiceMetrics } from './service-metrics.js';

export interface MetricsServer {
  /** `http://host:port`, as bound (a port of 0 picks a free one). */
  url: string;
  close(): Promise<void>;
}

/**
 * Why the metrics port could not listen, worded for the operator with the setting to change
 * (as `describeStartError` words the API's and the CDN's ports); any other failure as the
 * error `listen` gave.
 */
function listenError(
  failure: Extract<FromMetricsPort, { kind: 'failed' }>,
  host: string,
  port: number,
): Error {
  if (failure.code === 'EADDRINUSE') {
    return new StartupError(
      portInUseMessage(
        port,
        host,
        'choose another port for the metrics with FILEHOST_METRICS_PORT',
      ),
    );
  }
  if (failure.code === 'EADDRNOTAVAIL') {
    return new StartupError(
      `The metrics cannot listen on ${host}: no network interface of this machine has that address. Set FILEHOST_METRICS_HOST to one of its addresses (127.0.0.1 by default).`,
    );
  }
  const { kind: _kind, message, ...fields } = failure;
  return Object.assign(new Error(message), fields);
}

/**
 * `GET /metrics` in Prometheus' text format on a port of its own (`FILEHOST_METRICS_PORT`),
 * bound to `host` (`FILEHOST_METRICS_HOST`, loopback by default): no key is asked, so it
 * is reachable only where the operator binds it, never through the API's or the CDN's
 * port. Anything else is `404`; a method other than GET or HEAD, `405`.
 *
 * Why the port's HTTP server runs in a worker thread (`metrics-port-worker.ts`), and only
 * the scrape's text is made here: `node:http`'s code is shared by every server of a thread,
 * and V8 optimises it for the objects it has seen. Answering scrapes on the CDN's thread
 * left that code on slower paths for every CDN answer after the first scrape (megamorphic
 * property loads, the request's and response's constructors, `nextTick`): a cached 1 KiB
 * answer cost about 7% more CPU with metrics on and scraped every second, and nothing more
 * when never scraped (test/bench/README.md, #55 point 6). In a worker, the port's server
 * runs in an isolate of its own.
 */
export async function serveMetrics(
  metrics: ServiceMetrics,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const worker: Worker = moduleWorker(import.meta.url, 'metrics-port-worker', {
    workerData: { host, port },
  });
  const tell = (message: ToMetricsPort) => worker.postMessage(message);
  const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const listening = new Promise<{ address: string; family: string; port: number }>(
    (resolve, reject) => {
      worker.once('error', reject);
      worker.once('exit', () => reject(new Error('The metrics port stopped before it listened.')));
      worker.on('message', (message: FromMetricsPort) => {
        if (message.kind === 'listening') resolve(message);
        else if (message.kind === 'failed') reject(listenError(message, host, port));
        else {
          metrics.scrape().then(
            ({ body, contentType }) => tell({ kind: 'scraped', id: message.id, body, contentType }),
            (error: unknown) =>
              tell({ kind: 'unscraped', id: message.id, message: (error as Error).message }),
          );
        }
      });
    },
  );
  const bound = await listening.catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  const shownHost = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${shownHost}:${bound.port}`,
    close: async () => {
      tell({ kind: 'close' });
      await ended;
    },
  };
}
