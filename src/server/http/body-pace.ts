import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ServiceError } from '../ground/errors.js';

/**
 * decisions.md, "Slow senders hold nothing": a request body that brings fewer than this many
 * bytes in any window once its headers are in is ended. A sender that trickles a byte every
 * few seconds never trips an idle timeout, yet holds its reservation (quota, the address's
 * allowance, a token's room) for as long as it likes.
 */
export const MIN_BODY_BYTES_PER_WINDOW = 16 * 1024;

/** How many steps a window is counted in: the window slides by a thirtieth of itself. */
const STEPS_PER_WINDOW = 30;

export interface BodyPaceOptions {
  /** The window, `FILEHOST_BODY_PROGRESS_WINDOW` (30 s by default). */
  windowMs: number;
  minBytes?: number;
}

/** The error a stalled body ends its request with: `408`, and the connection closes. */
export class SlowBodyError extends ServiceError {
  constructor(windowMs: number, minBytes: number) {
    super(
      'request_timeout',
      `The request body brought less than ${minBytes / 1024} KiB in ${windowMs / 1000} s; nothing was kept. Send it again on a faster connection.`,
      { extra: { seconds: windowMs / 1000 }, headers: { Connection: 'close' } },
    );
    this.name = 'SlowBodyError';
  }
}

/**
 * The pace of one request's body: the bytes its socket brought in each step of the last
 * window. A window in which the service itself did not read (bytes wait unread in the
 * request: the store or the scanner is slow) is not the sender's fault and starts afresh.
 */
class BodyPace {
  /** Why the body was ended, once it was. */
  private stalled: SlowBodyError | null = null;
  /** Reads waiting now, each told if the body stalls (then forgotten as it settles). */
  private readonly waiting = new Set<(error: SlowBodyError) => void>();
  private readonly steps: number[] = [];
  private readonly timer: ReturnType<typeof setInterval>;
  private lastBytesRead: number;
  private watchedSince = Date.now();

  constructor(
    private readonly request: IncomingMessage,
    private readonly windowMs: number,
    private readonly minBytes: number,
  ) {
    this.lastBytesRead = request.socket.bytesRead;
    this.timer = setInterval(() => this.step(), windowMs / STEPS_PER_WINDOW);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * `read`, or `SlowBodyError` as soon as the body stalls, whichever comes first. Each read
   * registers for the stall only while it waits: racing every chunk against one promise that
   * never settles would keep a reaction per chunk alive for the whole body.
   */
  race<T>(read: Promise<T>): Promise<T> {
    const stalled = this.stalled;
    if (stalled) {
      read.catch(() => {});
      return Promise.reject(stalled);
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.add(reject);
      read.then(
        (value) => {
          this.waiting.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.waiting.delete(reject);
          reject(error);
        },
      );
    });
  }

  private step(): void {
    const { request } = this;
    if (request.complete || request.destroyed) {
      this.stop();
      return;
    }
    const bytesRead = request.socket.bytesRead;
    this.steps.push(bytesRead - this.lastBytesRead);
    this.lastBytesRead = bytesRead;
    if (this.steps.length > STEPS_PER_WINDOW) this.steps.shift();
    // Bytes wait unread in the request (its reader is slow, or paused by a slow store it
    // pipes to): the sender is waiting on us. (`readableFlowing` says nothing here: an
    // async iterator reads in paused mode.)
    if (request.readableLength > 0) {
      this.steps.length = 0;
      this.watchedSince = Date.now();
      return;
    }
    if (Date.now() - this.watchedSince < this.windowMs) return;
    const inWindow = this.steps.reduce((sum, bytes) => sum + bytes, 0);
    if (inWindow >= this.minBytes) return;
    this.stop();
    const stalled = new SlowBodyError(this.windowMs, this.minBytes);
    this.stalled = stalled;
    for (const reject of this.waiting) reject(stalled);
    this.waiting.clear();
  }
}

const paces = new WeakMap<IncomingMessage, BodyPace>();

/**
 * Watches the pace of every request body `server` receives, from the moment its headers are
 * in until the body has arrived or the request is answered. Routes that read a body read it
 * through `untilStalled`, which fails with `SlowBodyError` when the pace falls short; the
 * route then gives back what it reserved and its error handler answers `408`.
 */
export function watchBodyPace(server: Server, options: BodyPaceOptions): void {
  const minBytes = options.minBytes ?? MIN_BODY_BYTES_PER_WINDOW;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const headers = request.headers;
    // No body to watch (RFC 9112 §6.3: neither header, no body).
    if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
      return;
    }
    if (headers['content-length'] === '0') return;
    const pace = new BodyPace(request, options.windowMs, minBytes);
    paces.set(request, pace);
    response.once('close', () => pace.stop());
  });
}

/**
 * `source` (the body of `request`, or something read from it: a multipart body's parts, a
 * part's bytes) until the body stalls: then it fails with `SlowBodyError`, even while a read
 * is waiting. A read left waiting is abandoned, not cancelled: the request is not destroyed,
 * so the `408` still reaches the client (the rest of the body is dropped by
 * `lingering-close.ts`). A request no pace watches (a body-less one) passes through.
 */
export async function* untilStalled<T>(
  source: AsyncIterable<T>,
  request: IncomingMessage,
): AsyncGenerator<T> {
  const pace = paces.get(request);
  if (!pace) {
    yield* source;
    return;
  }
  const iterator = source[Symbol.asyncIterator]();
  let stalled = false;
  try {
    for (;;) {
      let result: IteratorResult<T>;
      try {
        result = await pace.race(iterator.next());
      } catch (error) {
        stalled = error instanceof SlowBodyError;
        throw error;
      }
      if (result.done) return;
      yield result.value;
    }
  } finally {
    // An async generator queues `return` behind a read in progress: after a stall it would
    // wait for the stalled read, so it is left to settle on its own.
    const closing = iterator.return?.();
    if (stalled) closing?.catch(() => {});
    else await closing;
  }
}

/** `promise` (something that waits on `request`'s body) unless the body stalls first. */
export function orStalled<T>(promise: Promise<T>, request: IncomingMessage): Promise<T> {
  const pace = paces.get(request);
  return pace ? pace.race(promise) : promise;
}
