import { finished, Readable } from 'node:stream';
import { BlobUnavailableError } from '../blob-store.js';

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
  readonly #idleMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(source: Readable, idleMs: number) {
    super({ highWaterMark: source.readableHighWaterMark });
    this.#source = source;
    this.#idleMs = idleMs;
    source.on('data', (chunk: Buffer) => {
      if (this.push(chunk)) {
        this.#arm();
      } else {
        // The reader is full: its pause is not the store's silence.
        this.#disarm();
        source.pause();
      }
    });
    source.once('end', () => {
      this.#disarm();
      this.push(null);
    });
    finished(source, (error) => {
      if (error) this.destroy(error);
    });
    // Attaching 'data' made it flowing; nothing is read until this stream is.
    source.pause();
  }

  override _read(): void {
    this.#arm();
    this.#source.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#disarm();
    // A body read halfway must not go back to the connection pool.
    this.#source.destroy();
    callback(error);
  }

  #arm(): void {
    this.#disarm();
    this.#timer = setTimeout(() => {
      this.destroy(
        new BlobUnavailableError(
          'unreachable',
          `S3 sent nothing for ${this.#idleMs} ms while the object was being read`,
        ),
      );
    }, this.#idleMs);
  }

  #disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
