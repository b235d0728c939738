import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import type { FromMetricsPort, ToMetricsPort } from './metrics-port-messages.js';

/**
 * The metrics port's HTTP server, in a worker thread of its own (`metrics-server.ts` says
 * why). It asks the service's thread for each scrape's text and sends it; it holds no
 * metric itself.
 */
const port = parentPort;
if (!port) throw new Error('metrics-port-worker.ts runs only as a worker thread');
const { host, port: asked } = workerData as { host: string; port: number };

const tell = (message: FromMetricsPort) => port.postMessage(message);
const waiting = new Map<number, (answer: ToMetricsPort) => void>();
let nextScrape = 0;

const server = createServer((request, response) => {
  const path = (request.url ?? '').split('?')[0];
  if (path !== '/metrics') {
    response.writeHead(404, { 'content-type': 'text/plain' }).end('Only /metrics is here.\n');
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  const id = nextScrape++;
  waiting.set(id, (answer) => {
    if (answer.kind === 'scraped') {
      response.writeHead(200, {
        'content-type': answer.contentType,
        'cache-control': 'no-store',
        'content-length': String(Buffer.byteLength(answer.body)),
      });
      response.end(request.method === 'HEAD' ? undefined : answer.body);
    } else if (answer.kind === 'unscraped') {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`The metrics could not be collected: ${answer.message}\n`);
    }
  });
  tell({ kind: 'scrape', id });
});
// A scrape is one short request; a kept-alive scraper's connection must not hold a close.
server.keepAliveTimeout = 5_000;

port.on('message', (message: ToMetricsPort) => {
  if (message.kind === 'close') {
    server.close(() => port.close());
    server.closeAllConnections();
    return;
  }
  const answer = waiting.get(message.id);
  waiting.delete(message.id);
  answer?.(message);
});

server.once('error', (error: NodeJS.ErrnoException & { address?: string; port?: number }) => {
  // Rebuilt on the service's thread with these fields, as `listen` would have thrown them.
  tell({
    kind: 'failed',
    message: error.message,
    code: error.code,
    syscall: error.syscall,
    address: error.address,
    port: error.port,
  });
  port.close();
});
server.listen(asked, host, () => {
  const address = server.address() as AddressInfo;
  tell({ kind: 'listening', address: address.address, family: address.family, port: address.port });
});
