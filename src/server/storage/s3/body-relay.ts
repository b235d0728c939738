import type { IncomingMessage, ServerResponse } from 'node:http';
import { finished } from 'node:stream';
import { BlobUnavailableError } from '../blob-store.js';
import { StallClock } from './stall-clock.js';

/**
 * Sends the bucket's answer `body` on to `destination` (an HTTP answer) and ends it, with
 * the stall guard's rule (`stall-guard.ts`): it fails when the bucket sends nothing for
 * `idleMs` while the answer is waiting for bytes, never while the client is slow to take
 * them. The same as piping `guardStalls(body)` to the answer, without the stream between
 * them and a timer made and cleared for every chunk: for 1 MiB answers at scale that layer
 * was a share of the CPU nginx, relaying the same bytes, does not spend
 * (test/bench/README.md).
 *
 * Resolves once the last byte was handed over or the client went away, before the relay or
 * during it (the body is then dropped, never returned half read to the connection pool);
 * rejects, having destroyed the answer (its length was promised: it is cut), when the
 * bucket failed or stalled.
 */
export function relayBody(
  body: IncomingMessage,
  destination: ServerResponse,
  idleMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (destination.destroyed) {
      // The client went away while the bucket's head was awaited: its 'close' has passed,
      // and a write to it never drains, so relaying would hold the bucket's connection
      // paused for ever. The body is dropped now.
      body.destroy();
      resolve();
      return;
    }
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      clock.disarm();
      destination.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const fail = (error: Error) => {
      body.destroy();
      destination.destroy(error);
      settle(error);
    };
    // Waiting for the bucket: the clock runs.
    const clock = new StallClock(idleMs, () =>
      fail(
        new BlobUnavailableError(
          'unreachable',
          `S3 sent nothing for ${idleMs} ms while the object was being read`,
        ),
      ),
    );
    const onDrain = () => {
      clock.arm();
      body.resume();
    };
    const onClose = () => {
      if (destination.writableFinished) return;
      // The client went away: the rest of the body is not read.
      body.destroy();
      settle();
    };
    destination.once('close', onClose);
    body.on('data', (chunk: Buffer) => {
      if (destination.write(chunk)) {
        clock.arm();
        return;
      }
      // The client is full: its pause is not the bucket's silence.
      clock.disarm();
      body.pause();
      destination.once('drain', onDrain);
    });
    finished(body, (error) => {
      if (settled) return;
      if (error) {
        fail(error);
        return;
      }
      destination.end();
      settle();
    });
    clock.arm();
  });
}
