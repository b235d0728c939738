import { get, type IncomingMessage, request } from 'node:http';

/**
 * How the relay tests (`body-relay.test.ts`, `bucket-connections.test.ts`) read the CDN's
 * answer: as a client that is slow, or one that sees the answer cut.
 */

/** The answer to a GET of `url`, on a connection of its own. */
export function fetchAnswer(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, { agent: false }, resolve).on('error', reject));
}

/** Every byte of `answer`. */
export async function readAll(answer: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every byte of `url`'s answer, read by a client that stops for `pauseMs` after the first chunk. */
export async function readPausingOnce(url: string, pauseMs: number): Promise<Buffer> {
  const answer = await fetchAnswer(url);
  const chunks: Buffer[] = [];
  for await (const chunk of answer) {
    chunks.push(chunk as Buffer);
    if (chunks.length === 1) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return Buffer.concat(chunks);
}

/** How many bytes of `url`'s answer came, and whether it was cut rather than ended. */
export async function readUntilCut(url: string): Promise<{ got: number; cut: boolean }> {
  const answer = await fetchAnswer(url);
  let got = 0;
  const cut = await new Promise<boolean>((resolve) => {
    answer.on('data', (chunk: Buffer) => {
      got += chunk.length;
    });
    answer.on('error', () => resolve(true));
    answer.on('end', () => resolve(false));
  });
  return { got, cut };
}

/**
 * Asks `url` and goes away as soon as the bucket behind it was asked (`asked`, the bucket's
 * answers, grew): a client that leaves while the CDN awaits the bucket's head. Answers the
 * bucket's answer to that request.
 */
export async function leaveOnceAsked<T>(url: string, asked: readonly T[]): Promise<T> {
  const before = asked.length;
  const client = request(url);
  client.on('error', () => {});
  client.end();
  while (asked.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
  client.destroy();
  return asked[before] as T;
}
