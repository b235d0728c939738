import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { finished } from 'node:stream';
import { BlobUnavailableError } from '../blob-store.js';
import { type AnswerHead, parseAnswerHead } from './answer-head.js';
import { StallClock } from './stall-clock.js';

/**
 * Kept-alive plain-HTTP connections to the bucket that relay an object's bytes to the
 * CDN's client without allocating memory per chunk: each connection reads into two buffers
 * of its own (`net.Socket`'s `onread`), in turns, and a buffer is read into again only once
 * the client's socket took the bytes it held. Through `node:http` every 64 KiB read from the
 * bucket is a fresh buffer and its body a second, copied one: 2 MiB of short-lived memory
 * per MiB relayed, which made V8 mark its whole heap every few dozen answers, a fifth of
 * the instance's CPU (test/bench/README.md, 2026-11-29 "cdn-scale").
 *
 * Only what the CDN asks is done here: a GET whose answer carries its length. Any other
 * answer (an error, a body framed otherwise) is `declined`, its connection closed unread,
 * and the caller asks again the usual way, which reads and classifies it.
 */
export interface BucketConnectionsOptions {
  /** `host:port` of the bucket's plain-HTTP endpoint. */
  host: string;
  port: number;
  /**
   * Most connections open at once; more requests wait for one, for `idleMs` at most (a
   * connection is held as long as its client takes to read, which may be for ever).
   */
  maxSockets: number;
  /** Each connection's two buffers are this size: one read from the bucket at most. */
  chunkBytes: number;
  /**
   * How long the bucket may send nothing while an answer waits for it; also how long a
   * request waits for a connection when all `maxSockets` are busy.
   */
  idleMs: number;
  /**
   * How long a connection is kept open with nothing to do: its buffers are memory held for
   * the next answer (30 s by default, half of nginx's `keepalive_timeout` for upstreams).
   */
  keepIdleMs?: number;
}

/** The bucket's answer, its head read, its body not yet: `sendTo` relays the body. */
export interface OpenedAnswer {
  head: AnswerHead;
  /**
   * Writes the body (`head.length` bytes) to `destination` and ends it. Resolves once the
   * last byte was handed over or the client went away; rejects, having destroyed
   * `destination` (its length was promised: it is cut), when the bucket failed or stalled.
   */
  sendTo(destination: ServerResponse): Promise<void>;
}

/** The bucket's answer was not one this path relays; nothing of it was kept. */
export const DECLINED = 'declined';

/** A request waiting for a connection to come free. */
interface Waiter {
  take(connection: Connection): void;
  fail(error: Error): void;
}

export class BucketConnections {
  readonly #options: BucketConnectionsOptions;
  readonly #idle: Connection[] = [];
  readonly #waiting: Waiter[] = [];
  #open = 0;
  #closed = false;

  constructor(options: BucketConnectionsOptions) {
    this.#options = options;
  }

  /**
   * Sends `requestHead` (a whole GET head, its blank line included) and answers once the
   * bucket's head came: the answer to relay when `accept` takes its head (it must carry a
   * length and no other framing), else `DECLINED`. Rejects when the bucket cannot be
   * reached, closes the connection or says nothing for `idleMs`, or when no connection
   * comes free within `idleMs`; `reused` then says whether the connection had served an
   * answer before (a kept-alive connection the bucket closed meanwhile: asking again on a
   * new one is safe, nothing was sent on).
   */
  async open(
    requestHead: string,
    accept: (head: AnswerHead) => boolean,
  ): Promise<OpenedAnswer | typeof DECLINED> {
    const connection = await this.#acquire();
    return connection.ask(requestHead, accept);
  }

  /** Closes every idle connection, and fails the requests waiting for one. */
  close(): void {
    this.#closed = true;
    for (const connection of [...this.#idle]) connection.destroy();
    this.#idle.length = 0;
    for (const waiter of this.#waiting.splice(0)) waiter.fail(closedError());
  }

  #acquire(): Promise<Connection> {
    if (this.#closed) return Promise.reject(closedError());
    const idle = this.#idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.#open < this.#options.maxSockets) return Promise.resolve(this.#connect());
    const { idleMs, maxSockets } = this.#options;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        take: (connection) => {
          clearTimeout(timer);
          resolve(connection);
        },
        fail: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      // Every connection relays to a client that may never read on: waiting for one of
      // them is bounded as the bucket's silence is, and the caller asks another way.
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(
          new BucketConnectionError(
            `None of the ${maxSockets} connections to the bucket came free within ${idleMs} ms`,
            false,
          ),
        );
      }, idleMs);
      this.#waiting.push(waiter);
    });
  }

  #connect(): Connection {
    this.#open++;
    return new Connection(this.#options, {
      reusable: (connection) => {
        const waiter = this.#waiting.shift();
        if (waiter) waiter.take(connection);
        else if (this.#closed) connection.destroy();
        else this.#idle.push(connection);
      },
      closed: (connection) => {
        this.#open--;
        const at = this.#idle.indexOf(connection);
        if (at >= 0) this.#idle.splice(at, 1);
        const waiter = this.#waiting.shift();
        if (waiter) waiter.take(this.#connect());
      },
    });
  }
}

function closedError(): Error {
  return new Error('The bucket connections are closed');
}

/** Thrown for a connection that closed or failed before the bucket's head came. */
export class BucketConnectionError extends BlobUnavailableError {
  /** The connection had carried an answer before: the bucket may just have closed it idle. */
  readonly reused: boolean;
  constructor(message: string, reused: boolean, cause?: unknown) {
    super('unreachable', message, { cause });
    this.name = 'BucketConnectionError';
    this.reused = reused;
  }
}

interface Owner {
  /** Both buffers are free and the answer fully read: the connection may serve another. */
  reusable(connection: Connection): void;
  closed(connection: Connection): void;
}

/** What the connection is doing with the bytes it reads. */
type Phase =
  | { name: 'idle' }
  | {
      name: 'head';
      accept: (head: AnswerHead) => boolean;
      received: Buffer | null;
      resolve: (answer: OpenedAnswer | typeof DECLINED) => void;
      reject: (error: Error) => void;
    }
  | { name: 'held'; left: Buffer; remaining: number; keepAlive: boolean }
  | {
      name: 'body';
      destination: ServerResponse;
      remaining: number;
      keepAlive: boolean;
      resolve: () => void;
      reject: (error: Error) => void;
    };

class Connection {
  readonly #owner: Owner;
  /** The clock runs while an answer waits for the bucket, never while the client is slow. */
  readonly #clock: StallClock;
  readonly #keepIdleMs: number;
  readonly #socket: Socket;
  readonly #buffers: [Buffer, Buffer];
  /** Buffers whose bytes the client's socket has not taken yet. */
  readonly #inFlight = [false, false];
  /** The buffer the socket reads into next. */
  #next: 0 | 1 = 0;
  #phase: Phase = { name: 'idle' };
  #served = 0;
  #destroyed = false;

  constructor(options: BucketConnectionsOptions, owner: Owner) {
    this.#owner = owner;
    this.#clock = new StallClock(options.idleMs, () =>
      this.#fail(new Error(`The bucket sent nothing for ${options.idleMs} ms`)),
    );
    this.#keepIdleMs = options.keepIdleMs ?? 30_000;
    this.#buffers = [
      Buffer.allocUnsafeSlow(options.chunkBytes),
      Buffer.allocUnsafeSlow(options.chunkBytes),
    ];
    this.#socket = connect({
      host: options.host,
      port: options.port,
      noDelay: true,
      onread: {
        // Asked once as the socket opens, then after each read for the next one's buffer:
        // the other of the two.
        buffer: () => {
          this.#next = this.#next === 0 ? 1 : 0;
          return this.#buffers[this.#next];
        },
        callback: (length: number, buffer: Buffer) => this.#read(buffer.subarray(0, length)),
      },
    });
    this.#socket.setKeepAlive(true);
    this.#socket.on('error', (error) => this.#fail(error));
    this.#socket.on('close', () => this.#fail(new Error('The bucket closed the connection')));
    // Armed only while the connection waits idle for its next answer (`#finish`).
    this.#socket.on('timeout', () => {
      if (this.#phase.name !== 'idle') return;
      this.destroy();
      this.#owner.closed(this);
    });
  }

  ask(
    requestHead: string,
    accept: (head: AnswerHead) => boolean,
  ): Promise<OpenedAnswer | typeof DECLINED> {
    return new Promise((resolve, reject) => {
      this.#phase = { name: 'head', accept, received: null, resolve, reject };
      this.#socket.setTimeout(0);
      this.#clock.arm();
      this.#socket.write(requestHead);
    });
  }

  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#clock.disarm();
    this.#socket.destroy();
  }

  /** Bytes read into one of the buffers; false stops reading until `#resume`. */
  #read(bytes: Buffer): boolean {
    const phase = this.#phase;
    if (phase.name === 'head') return this.#readHead(phase, bytes);
    if (phase.name === 'body') return this.#relay(phase, bytes);
    // Nothing was asked: bytes now are a bucket out of step with us.
    this.#fail(new Error('The bucket sent bytes nobody asked for'));
    return false;
  }

  #readHead(phase: Extract<Phase, { name: 'head' }>, bytes: Buffer): boolean {
    const received = phase.received ? Buffer.concat([phase.received, bytes]) : bytes;
    const head = parseAnswerHead(received);
    if (head === null) {
      // The head continues in the next read: keep what came (the buffer is read into again).
      phase.received = Buffer.from(received);
      this.#clock.arm();
      return true;
    }
    this.#clock.disarm();
    if (head instanceof Error || head.length === null || head.encoded || !phase.accept(head)) {
      this.destroy();
      this.#owner.closed(this);
      phase.resolve(DECLINED);
      return false;
    }
    const left = received.subarray(head.size);
    if (left.length > head.length) {
      this.destroy();
      this.#owner.closed(this);
      phase.reject(new BucketConnectionError('The bucket sent more than its answer', false));
      return false;
    }
    // The body's first bytes stay where they were read (this buffer is not read into again
    // until they are sent): no copy, unless the head came in pieces.
    if (received === bytes) this.#inFlight[this.#indexOf(bytes)] = true;
    this.#phase = { name: 'held', left, remaining: head.length, keepAlive: head.keepAlive };
    const heldBuffer = received === bytes ? this.#indexOf(bytes) : -1;
    phase.resolve({
      head,
      sendTo: (destination) => this.#sendTo(destination, heldBuffer),
    });
    // Nothing more is read until the caller says where the body goes.
    return false;
  }

  #sendTo(destination: ServerResponse, heldBuffer: number): Promise<void> {
    const held = this.#phase;
    if (held.name !== 'held') return Promise.reject(new Error('The answer was sent already'));
    if (destination.destroyed) {
      // The client went away while the head was awaited: its 'close' has passed, so the
      // relay would never hear of it. The body is not read; the connection goes with it.
      this.#phase = { name: 'idle' };
      this.destroy();
      this.#owner.closed(this);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const phase: Extract<Phase, { name: 'body' }> = {
        name: 'body',
        destination,
        remaining: held.remaining,
        keepAlive: held.keepAlive,
        resolve,
        reject,
      };
      this.#phase = phase;
      destination.once('close', () => {
        if (this.#phase !== phase || destination.writableFinished) return;
        // The client went away: the rest of the answer is not read; the connection with it.
        this.destroy();
        this.#owner.closed(this);
        this.#phase = { name: 'idle' };
        resolve();
      });
      if (held.left.length > 0) {
        const index = heldBuffer >= 0 ? heldBuffer : -1;
        phase.remaining -= held.left.length;
        destination.write(held.left, () => this.#release(index));
      } else if (heldBuffer >= 0) {
        this.#inFlight[heldBuffer] = false;
      }
      if (phase.remaining === 0) this.#finish(phase);
      else this.#resume();
    });
  }

  /** Body bytes: on to the client, the buffer lent until its socket took them. */
  #relay(phase: Extract<Phase, { name: 'body' }>, bytes: Buffer): boolean {
    if (bytes.length > phase.remaining) {
      const error = new BucketConnectionError('The bucket sent more than its answer', false);
      this.destroy();
      this.#owner.closed(this);
      phase.destination.destroy(error);
      phase.reject(error);
      return false;
    }
    const index = this.#indexOf(bytes);
    this.#inFlight[index] = true;
    phase.remaining -= bytes.length;
    phase.destination.write(bytes, () => this.#release(index));
    if (phase.remaining === 0) {
      this.#finish(phase);
      return false;
    }
    // The next read goes into the other buffer: only once the client took its bytes.
    if (this.#inFlight[index === 0 ? 1 : 0]) {
      this.#clock.disarm();
      return false;
    }
    this.#clock.arm();
    return true;
  }

  #finish(phase: Extract<Phase, { name: 'body' }>): void {
    this.#clock.disarm();
    this.#phase = { name: 'idle' };
    this.#served++;
    const { destination } = phase;
    destination.end();
    if (!phase.keepAlive) {
      this.destroy();
      this.#owner.closed(this);
    } else {
      // Once the client's socket took every byte, both buffers are free again.
      finished(destination, (error) => {
        if (this.#destroyed) return;
        if (error) {
          this.destroy();
          this.#owner.closed(this);
          return;
        }
        this.#inFlight[0] = false;
        this.#inFlight[1] = false;
        // Reading while idle, so that the bucket closing the connection is seen at once.
        this.#socket.resume();
        this.#socket.setTimeout(this.#keepIdleMs);
        this.#owner.reusable(this);
      });
    }
    phase.resolve();
  }

  #release(index: number): void {
    if (index >= 0) this.#inFlight[index] = false;
    if (this.#destroyed || this.#phase.name !== 'body') return;
    if (index === this.#next) this.#resume();
  }

  #resume(): void {
    if (this.#inFlight[this.#next]) return;
    this.#clock.arm();
    this.#socket.resume();
  }

  #indexOf(bytes: Buffer): 0 | 1 {
    return bytes.buffer === this.#buffers[0].buffer ? 0 : 1;
  }

  #fail(cause: Error): void {
    const phase = this.#phase;
    const wasOpen = !this.#destroyed;
    this.#phase = { name: 'idle' };
    this.destroy();
    if (wasOpen) this.#owner.closed(this);
    if (phase.name === 'head') {
      phase.reject(new BucketConnectionError(cause.message, this.#served > 0, cause));
    } else if (phase.name === 'body') {
      const error = new BlobUnavailableError('unreachable', cause.message, { cause });
      phase.destination.destroy(error);
      phase.reject(error);
    }
  }
}
