import { AssertionError } from 'node:assert';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookPayload } from '../../src/api/events.js';
import { webhookViolations } from './openapi-contract.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
  method: string;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /**
   * How the next requests are answered (default 204); a function sees the request's index.
   * 0: never (the request hangs until the sender gives up).
   */
  answer: (index: number, request: Received) => number;
  /** Resolves once `count` requests have arrived (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  /**
   * A request checked as a backend checks it, by the Standard Webhooks reference library
   * (not our code): throws if the signature or timestamp does not verify.
   */
  verify(request: Received, secret: string): WebhookPayload;
  close(): Promise<void>;
}

/** A backend's endpoint on loopback that records what reaches it. */
export async function startReceiver(path = '/hooks/filehost'): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received,
    answer: () => 204,
    async waitFor(count, timeoutMs = 10_000) {
      if (received.length < count) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`${received.length} of ${count} webhooks in ${timeoutMs} ms`)),
            timeoutMs,
          );
          waiters.push({
            count,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          });
        });
      }
      const deliveries = received.slice(0, count);
      // Each delivery is held to the document's `webhooks` (see openapi-contract.ts).
      const violations = deliveries.flatMap((delivery, index) =>
        webhookViolations(delivery.headers, delivery.body, delivery.method).map(
          (problem) => `delivery ${index}: ${problem}`,
        ),
      );
      if (violations.length > 0) {
        throw new AssertionError({
          message: `webhooks break src/api/openapi.json:\n  ${violations.join('\n  ')}`,
        });
      }
      return deliveries;
    },
    verify(request, secret) {
      return new Webhook(secret).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }) as WebhookPayload;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: request.url ?? '',
        method: request.method ?? '',
      };
      const index = received.push(entry) - 1;
      const status = receiver.answer(index, entry);
      if (status === 0) return;
      response.writeHead(status, status >= 300 && status < 400 ? { Location: '/elsewhere' } : {});
      response.end('ok');
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
