import { finished, Readable } from 'node:stream';
import { BlobUnavailableError } from '../blob-store.js';
import { StallClock } from './stall-clock.js';

/**
 * Wraps a response body so that it fails when the store stops sending while the reader is
 * waiting, and only then.
 *
 * A socket idle timeout (the SDK's `socketTimeout`) cannot tell a dead store from a slow
 * reader: when the reader applies backpressure the socket goes quiet too, so a browser
 * that pauses a video download for a minute would lose its stream. Here the clock runs
 * only while this stream has asked for data and none has come.
 */
export function guardStalls(source: Readable, idleMs: number): Readable {
  return new StallGuard(source, idleMs);
}

class StallGuard extends Readable {
  readonly #source: Readable;
  readonly #clock: StallClock;

  constructor(source: Readable, idleMs: number) {
    super({ highWaterMark: source.readableHighWaterMark });
    this.#source = source;
    this.#clock = new StallClock(idleMs, () =>
      this.destroy(
        new BlobUnavailableError(
          'unreachable',
          `S3 sent nothing for ${idleMs} ms while the object was being read`,
        ),
      ),
    );
    source.on('data', (chunk: Buffer) => {
      if (this.push(chunk)) {
        this.#clock.arm();
      } else {
        // The reader is full: its pause is not the store's silence.
        this.#clock.disarm();
        source.pause();
      }
    });
    source.once('end', () => {
      this.#clock.disarm();
      this.push(null);
    });
    finished(source, (error) => {
      if (error) this.destroy(error);
    });
    // Attaching 'data' made it flowing; nothing is read until this stream is.
    source.pause();
  }

  override _read(): void {
    this.#clock.arm();
    this.#source.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#clock.disarm();
    // A body read halfway must not go back to the connection pool.
    this.#source.destroy();
    callback(error);
  }
}
