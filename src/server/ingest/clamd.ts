import { connect, type Socket } from 'node:net';
import type { Readable } from 'node:stream';

/** Where clamd listens: `tcp://host:port`, or the path of its unix socket. */
export type ClamdAddress = { host: string; port: number } | { path: string };

/** What clamd made of a stream. */
export type ScanVerdict = { infected: false } | { infected: true; signature: string };

/**
 * clamd could not give a verdict: not reachable, gone mid-scan, silent past the timeout, or
 * refusing the stream (its `StreamMaxLength` below the file's size). The file is not made
 * ready; the caller answers `503 unavailable` and the upload may be completed later.
 */
export class ScannerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ScannerUnavailableError';
  }
}

/**
 * Parses `FILEHOST_CLAMD`: `tcp://host:port` (clamd's `TCPSocket`), or an absolute path
 * (its `LocalSocket`, optionally written `unix:///path`). Throws a `TypeError` saying what
 * is wrong.
 */
export function parseClamdAddress(raw: string): ClamdAddress {
  if (raw.startsWith('tcp://')) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new TypeError(`"${raw}" is not tcp://host:port`);
    }
    const port = Number(url.port);
    if (!url.hostname || !Number.isInteger(port) || port < 1 || url.pathname.length > 1) {
      throw new TypeError(`"${raw}" is not tcp://host:port`);
    }
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
  }
  const path = raw.startsWith('unix://') ? raw.slice('unix://'.length) : raw;
  if (!path.startsWith('/')) {
    throw new TypeError(`"${raw}" is neither tcp://host:port nor the absolute path of a socket`);
  }
  return { path };
}

/**
 * Largest chunk sent in one INSTREAM frame. clamd reads a frame whole before the next one;
 * 64 KiB is what a stream read yields anyway, so frames cost nothing extra.
 */
const MAX_FRAME = 64 * 1024;

/** An answer longer than this is not clamd's (a signature name is at most a few hundred bytes). */
const MAX_REPLY = 4096;

/**
 * A client of ClamAV's daemon for one kind of request: `zINSTREAM`, the file's bytes sent
 * in length-prefixed frames as they are read (never the whole file in memory), then the
 * verdict (`stream: OK` or `stream: <signature> FOUND`). One connection per scan, as clamd
 * expects for INSTREAM.
 */
export class ClamdScanner {
  readonly #address: ClamdAddress;
  readonly #timeoutMs: number;

  /**
   * `timeoutMs`: the longest clamd may stay silent: not accepting bytes while they are
   * sent, or not answering once they all are. A scan that makes progress is never cut.
   */
  constructor(address: ClamdAddress, options: { timeoutMs: number }) {
    this.#address = address;
    this.#timeoutMs = options.timeoutMs;
  }

  /** Streams `source` to clamd; throws `ScannerUnavailableError` when no verdict comes. */
  async scan(source: Readable | AsyncIterable<Buffer>): Promise<ScanVerdict> {
    const socket = connect(this.#address);
    const reply = readReply(socket, this.#timeoutMs);
    const [answer, failed] = await Promise.allSettled([reply, send(socket, source)]);
    // A failure of the source (storage unreachable) is that failure, not the scanner's.
    if (failed.status === 'fulfilled' && failed.value) throw failed.value.source;
    if (answer.status === 'rejected') throw answer.reason;
    return verdictOf(answer.value);
  }
}

/**
 * Sends the INSTREAM command and the frames, pulling the source only as fast as clamd takes
 * them. Answers the source's own failure, if it failed; a failure of the connection is left
 * to `readReply`, which reports it.
 */
async function send(
  socket: Socket,
  source: Readable | AsyncIterable<Buffer>,
): Promise<{ source: unknown } | undefined> {
  const iterator = (source as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    await waitConnected(socket);
    await write(socket, Buffer.from('zINSTREAM\0', 'latin1'));
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await iterator.next();
      } catch (error) {
        socket.destroy();
        return { source: error };
      }
      if (next.done) break;
      const chunk = next.value;
      for (let offset = 0; offset < chunk.length; offset += MAX_FRAME) {
        const frame = chunk.subarray(offset, offset + MAX_FRAME);
        const length = Buffer.alloc(4);
        length.writeUInt32BE(frame.length);
        await write(socket, length, frame);
      }
      // Gone, or answered early (clamd refuses a stream past its size limit): stop.
      if (socket.destroyed || socket.readableEnded) return undefined;
    }
    await write(socket, Buffer.alloc(4));
  } catch {
    // The connection failed: readReply rejects with the reason.
    socket.destroy();
  } finally {
    // Releases the source (an open file or a bucket response) when sending stopped early.
    await iterator.return?.();
  }
  return undefined;
}

function waitConnected(socket: Socket): Promise<void> {
  if (!socket.connecting) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      socket.off('connect', onConnect);
      reject(error);
    };
    const onConnect = () => {
      socket.off('error', onError);
      resolve();
    };
    socket.once('connect', onConnect);
    socket.once('error', onError);
  });
}

/**
 * Socket buffer allowed to build up before waiting for it to drain: the socket's own mark
 * (16 KiB) would wait once for every frame; a few frames in flight keep clamd busy, and
 * bound what the service holds per scan.
 */
const MAX_BUFFERED = 1024 * 1024;

/** Writes the buffers as one (a frame's length and its bytes), then waits while too much is buffered. */
function write(socket: Socket, ...buffers: Buffer[]): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  socket.cork();
  for (const buffer of buffers) socket.write(buffer);
  socket.uncork();
  if (socket.writableLength <= MAX_BUFFERED) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

/**
 * clamd's answer, up to its NUL (the `z` form) or the end of the connection. Rejects with
 * `ScannerUnavailableError` on a refused or broken connection and after `timeoutMs` of
 * silence in either direction.
 */
function readReply(socket: Socket, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (error?: Error) => {
      socket.setTimeout(0);
      socket.destroy();
      if (error) {
        reject(error);
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\0');
      resolve((end === -1 ? text : text.slice(0, end)).trim());
    };
    socket.setTimeout(timeoutMs, () =>
      finish(new ScannerUnavailableError(`clamd was silent for ${timeoutMs} ms`)),
    );
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (chunk.includes(0) || length > MAX_REPLY) finish();
    });
    socket.on('end', () => {
      if (length === 0)
        finish(new ScannerUnavailableError('clamd closed the connection unanswered'));
      else finish();
    });
    socket.on('error', (error) =>
      finish(
        new ScannerUnavailableError(`clamd is not reachable: ${error.message}`, { cause: error }),
      ),
    );
    socket.on('close', () => {
      if (length === 0)
        finish(new ScannerUnavailableError('clamd closed the connection unanswered'));
    });
  });
}

/** `stream: OK`, `stream: <name> FOUND`, or an error (`INSTREAM size limit exceeded. ERROR`). */
function verdictOf(reply: string): ScanVerdict {
  const found = /^(?:stream: )?(.+) FOUND$/.exec(reply);
  if (found?.[1]) return { infected: true, signature: found[1] };
  if (/^(?:stream: )?OK$/.test(reply)) return { infected: false };
  throw new ScannerUnavailableError(`clamd gave no verdict: ${reply.slice(0, 200)}`);
}
