import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Pipes `source` into `destination` and settles only once the destination has closed.
 *
 * On a failure `pipeline` settles as soon as it has destroyed the destination, not when the
 * destination has closed (nodejs/node#51540, Node 20). A file stream whose `open` is still
 * on the thread pool then creates its file after the caller removed it: a one-request upload
 * cut at once kept its temp file for good, now and then, when the machine was busy.
 */
export async function pipeUntilClosed(
  source: AsyncIterable<Buffer> | Readable,
  destination: Writable,
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  try {
    await pipeline(source, destination, options);
  } catch (error) {
    await closed(destination);
    throw error;
  }
}

function closed(stream: Writable): Promise<void> {
  if (stream.closed) return Promise.resolve();
  return new Promise((resolve) => stream.once('close', () => resolve()));
}
