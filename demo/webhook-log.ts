import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../src/client/node.js';
import { newWebhookSecret } from '../src/server/events/webhook-secret.js';

/**
 * `npm start -- --webhooks`: a backend's webhook endpoint inside the demo, which checks
 * each event as a real backend would (`verifyWebhook`) and prints it where `npm start`
 * runs. Off unless asked: most demos need no backend.
 */
export async function startWebhookLog(): Promise<{
  url: string;
  secret: string;
  close(): Promise<void>;
}> {
  const secret = newWebhookSecret();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const event = verifyWebhook(secret, request.headers, Buffer.concat(chunks));
        const { id, name, size } = event.data;
        console.log(`  webhook  ${event.type.padEnd(14)} ${id}  ${name} (${size} bytes)`);
        response.writeHead(204).end();
      } catch (error) {
        console.log(`  webhook  refused: ${(error as Error).message}`);
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    secret,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
