import { connect, type Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { ClamdAddress } from '../ground/config.js';

/**
 * What clamd made of a stream: clean; infected (a signature matched); or unscannable, when
 * clamd could not finish it within its limits (`Heuristics.Limits.Exceeded.*`, reported as
 * a finding with `AlertExceedsMax yes`: an archive that inflates past `MaxScanSize`, more
 * than `MaxFiles`, deeper than `MaxRecursion`, longer than `MaxScanTime`) or gave no verdict
 * within the scan timeout once it had every byte. `reason` says which, for the log.
 */
export type ScanVerdict =
  | { outcome: 'clean' }
  | { outcome: 'infected'; signature: string }
  | { outcome: 'unscannable'; reason: string };

/**
 * clamd could not give a verdict: not reachable, gone mid-scan, taking no bytes past the timeout, or
 * refusing the stream (its `StreamMaxLength` below the file's size). The file is not made
 * ready; the caller answers `503 unavailable` and the upload may be completed later.
 */
export class ScannerUnavailableError extends Error {
  /**
   * The connection was one kept from an earlier scan and it closed before answering: most
   * likely clamd closed it while it was idle (its `ReadTimeout`, or a restart) just as it was
   * taken. Scanning the same bytes again on a new connection is worth one try.
   */
  readonly staleConnection: boolean;

  constructor(message: string, options?: { cause?: unknown; staleConnection?: boolean }) {
    super(message, options);
    this.name = 'ScannerUnavailableError';
    this.staleConnection = options?.staleConnection ?? false;
  }
}

/**
 * Largest chunk sent in one INSTREAM frame. clamd reads a frame whole before the next one;
 * 64 KiB is what a stream read yields anyway, so frames cost nothing extra.
 */
const MAX_FRAME = 64 * 1024;

/** An answer longer than this is not clamd's (a signature name is at most a few hundred bytes). */
const MAX_REPLY = 4096;

/**
 * Socket buffer allowed to build up before waiting for it to drain: the socket's own mark
 * (16 KiB) would wait once for every frame; a few frames in flight keep clamd busy, and
 * bound what the service holds per scan.
 */
const MAX_BUFFERED = 1024 * 1024;

const INSTREAM = Buffer.from('zINSTREAM\0', 'latin1');
const END_OF_STREAM = Buffer.alloc(4);

/** The scan under way on a session: its command's number, and who waits for the answer. */
interface Pending {
  id: number;
  resolve: (reply: string) => void;
  reject: (error: ScannerUnavailableError | ScanTimedOut) => void;
}

/** clamd had every byte and gave no verdict within the scan timeout. */
class ScanTimedOut extends Error {}

/**
 * One connection to clamd in session mode (`zIDSESSION`), on which streams are scanned one
 * after another (`zINSTREAM`: the bytes in length-prefixed frames as they are read, never
 * the whole file in memory; then the verdict, `<n>: stream: OK` or `<n>: stream: <name>
 * FOUND`, `<n>` numbering the session's commands from 1).
 *
 * Why sessions: a connection per scan costs the service a socket's set-up and teardown for
 * every file, about half of the CPU it spent on a small file's scan (measured in
 * `test/bench/README.md`, "Scanning speed"). An idle session holds no clamd thread, only a
 * descriptor.
 *
 * A session whose scan did not end in a verdict (an error, a timeout, a source that failed
 * mid-stream, an early `ERROR` answer) is closed, never reused: what clamd has read of it
 * is unknown.
 */
export class ClamdSession {
  readonly #socket: Socket;
  readonly #connected: Promise<void>;
  #commands = 0;
  #scans = 0;
  #pending: Pending | null = null;
  #received = '';
  #gone = false;
  #closing = false;
  #failure: Error | null = null;
  #timeoutMs = 0;
  #scanTimeoutMs = 0;
  /** The scan under way has sent its last byte: clamd is deciding. */
  #allSent = false;
  #timedOut = false;
  readonly #onGone: (session: ClamdSession) => void;

  /** Connects and opens the session; `onGone` is told once the connection is closed. */
  constructor(address: ClamdAddress, onGone: (session: ClamdSession) => void) {
    this.#onGone = onGone;
    this.#socket = connect(address);
    this.#socket.setNoDelay(true);
    this.#socket.write('zIDSESSION\0', 'latin1');
    this.#connected = new Promise((resolve, reject) => {
      this.#socket.once('connect', resolve);
      this.#socket.once('close', () => reject(this.#unavailable(false)));
    });
    // Waited for only by a scan; a session closed before one starts needs no handler.
    this.#connected.catch(() => undefined);
    this.#socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.#socket.on('error', (error) => {
      this.#failure ??= error;
    });
    this.#socket.on('close', () => this.#onClose());
    this.#socket.on('timeout', (): void => {
      const pending = this.#pending;
      if (!pending) return;
      this.#pending = null;
      this.#timedOut = true;
      pending.reject(
        this.#allSent
          ? new ScanTimedOut(`no verdict within ${this.#scanTimeoutMs} ms of the last byte`)
          : new ScannerUnavailableError(`clamd took no bytes for ${this.#timeoutMs} ms`),
      );
      this.#socket.destroy();
    });
  }

  /** True while the connection can take another scan. */
  get usable(): boolean {
    return !this.#gone && !this.#closing && this.#pending === null && !this.#socket.destroyed;
  }

  /**
   * Streams `source` to clamd and answers its verdict. `timeouts.silenceMs`: the longest
   * clamd may take no bytes while they are sent (a daemon that is stuck or overloaded:
   * `ScannerUnavailableError`; a transfer that makes progress is never cut).
   * `timeouts.verdictMs`: the longest it may take to answer once it has every byte; past
   * it the file is `unscannable` (clamd's own `MaxScanTime` should answer first). Throws
   * `ScannerUnavailableError` when clamd cannot be reached or goes away, and the source's
   * own error when the source fails.
   */
  async scan(
    source: Readable | AsyncIterable<Buffer>,
    timeouts: { silenceMs: number; verdictMs: number },
  ): Promise<ScanVerdict> {
    const reused = this.#scans > 0;
    if (!this.usable) throw this.#unavailable(reused);
    const id = ++this.#commands;
    let answered = false;
    const reply = new Promise<string>((resolve, reject) => {
      this.#pending = { id, resolve, reject };
    }).finally(() => {
      answered = true;
    });
    this.#socket.ref();
    this.#timeoutMs = timeouts.silenceMs;
    this.#scanTimeoutMs = timeouts.verdictMs;
    this.#allSent = false;
    this.#timedOut = false;
    this.#socket.setTimeout(timeouts.silenceMs);
    const sendAll = this.#send(source, () => answered || this.#gone).then((outcome) => {
      if (!outcome.sourceFailed && outcome.complete && !answered) {
        // From here clamd is scanning: its time to answer is the verdict's.
        this.#allSent = true;
        this.#socket.setTimeout(timeouts.verdictMs);
      }
      return outcome;
    });
    const [answer, sent] = await Promise.allSettled([reply, sendAll]);
    this.#socket.setTimeout(0);
    this.#socket.unref();
    this.#pending = null;
    // A failure of the source (storage unreachable) is that failure, not the scanner's.
    const sending =
      sent.status === 'fulfilled' ? sent.value : { sourceFailed: false as const, complete: false };
    if (sending.sourceFailed) {
      this.#socket.destroy();
      throw sending.error;
    }
    if (answer.status === 'rejected') {
      this.#socket.destroy();
      if (answer.reason instanceof ScanTimedOut) {
        return { outcome: 'unscannable', reason: answer.reason.message };
      }
      const error = answer.reason as ScannerUnavailableError;
      // Closed on us, not silent: a kept connection clamd had let go of.
      if (reused && !this.#timedOut) {
        throw new ScannerUnavailableError(error.message, { cause: error, staleConnection: true });
      }
      throw error;
    }
    let verdict: ScanVerdict;
    try {
      verdict = verdictOf(answer.value);
    } catch (error) {
      this.#socket.destroy();
      throw error;
    }
    // Answered before every frame was sent (an early refusal is an ERROR, so this is
    // unlikely): the rest of the stream would be read as commands.
    if (!sending.complete) this.#socket.destroy();
    else this.#scans++;
    return verdict;
  }

  /** Ends an idle session (`zEND`) and its connection. */
  close(): void {
    const idle = this.usable;
    this.#closing = true;
    if (!idle || this.#socket.connecting) {
      this.#socket.destroy();
      return;
    }
    this.#socket.end('zEND\0', 'latin1');
    // clamd closes its side on END; a peer that does not is not waited for.
    this.#socket.setTimeout(1000, () => this.#socket.destroy());
  }

  /**
   * Sends the INSTREAM command and the frames, pulling the source only as fast as clamd
   * takes them, until the source ends or `stop` (answered, or gone) says to. A failure of
   * the connection is left to the reply, which reports it.
   */
  async #send(
    source: Readable | AsyncIterable<Buffer>,
    stop: () => boolean,
  ): Promise<{ sourceFailed: true; error: unknown } | { sourceFailed: false; complete: boolean }> {
    const iterator = (source as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    try {
      // Not a byte of the source is read before clamd is there to take it.
      await this.#connected;
      await this.#write(INSTREAM);
      for (;;) {
        let next: IteratorResult<Buffer>;
        try {
          next = await iterator.next();
        } catch (error) {
          // The stream cannot be finished: the connection goes (and the reply with it).
          this.#socket.destroy();
          return { sourceFailed: true, error };
        }
        if (next.done) break;
        const chunk = next.value;
        for (let offset = 0; offset < chunk.length; offset += MAX_FRAME) {
          const frame = chunk.subarray(offset, offset + MAX_FRAME);
          const length = Buffer.allocUnsafe(4);
          length.writeUInt32BE(frame.length);
          await this.#write(length, frame);
        }
        if (stop()) return { sourceFailed: false, complete: false };
      }
      await this.#write(END_OF_STREAM);
      return { sourceFailed: false, complete: true };
    } catch {
      // The connection failed: the reply rejects with the reason.
      return { sourceFailed: false, complete: false };
    } finally {
      // Releases the source (an open file or a bucket response) when sending stopped early.
      await iterator.return?.();
    }
  }

  /** Writes the buffers as one (a frame's length and its bytes), then waits while too much is buffered. */
  #write(...buffers: Buffer[]): Promise<void> {
    const socket = this.#socket;
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

  #onData(chunk: Buffer): void {
    this.#received += chunk.toString('utf8');
    for (let end = this.#received.indexOf('\0'); end !== -1; end = this.#received.indexOf('\0')) {
      const line = this.#received.slice(0, end);
      this.#received = this.#received.slice(end + 1);
      const pending = this.#pending;
      const numbered = /^(\d+): (.*)$/s.exec(line);
      if (!pending || !numbered || Number(numbered[1]) !== pending.id) {
        // Nothing was asked, or not this: the session is out of step; drop it.
        this.#socket.destroy();
        pending?.reject(
          new ScannerUnavailableError(`clamd answered out of turn: ${line.slice(0, 200)}`),
        );
        this.#pending = null;
        return;
      }
      this.#pending = null;
      pending.resolve((numbered[2] as string).trim());
    }
    // clamd's own notices end in a newline, not NUL (`COMMAND READ TIMED OUT` on an idle
    // session): nothing is waiting for them, and the connection is closed after.
    if (this.#received.length > MAX_REPLY || (!this.#pending && this.#received.length > 0)) {
      this.#socket.destroy();
    }
  }

  #onClose(): void {
    this.#gone = true;
    const pending = this.#pending;
    this.#pending = null;
    pending?.reject(this.#unavailable(false));
    this.#onGone(this);
  }

  #unavailable(staleConnection: boolean): ScannerUnavailableError {
    const failure = this.#failure;
    if (failure) {
      return new ScannerUnavailableError(`clamd is not reachable: ${failure.message}`, {
        cause: failure,
        staleConnection,
      });
    }
    const said = this.#received.trim();
    return new ScannerUnavailableError(
      `clamd closed the connection unanswered${said ? `: ${said.slice(0, 200)}` : ''}`,
      { staleConnection },
    );
  }
}

/**
 * clamd's findings that are no signature but a limit it stopped at (with `AlertExceedsMax
 * yes`): `Heuristics.Limits.Exceeded.MaxScanSize`, `.MaxFileSize`, `.MaxRecursion`,
 * `.MaxFiles`, `.MaxScanTime` and the like.
 */
const LIMIT_EXCEEDED = /^Heuristics\.Limits\.Exceeded(?:\.|$)/;

/** `stream: OK`, `stream: <name> FOUND`, or an error (`INSTREAM size limit exceeded. ERROR`). */
export function verdictOf(reply: string): ScanVerdict {
  const found = /^(?:stream: )?(.+) FOUND$/.exec(reply);
  if (found?.[1]) {
    const name = found[1];
    return LIMIT_EXCEEDED.test(name)
      ? { outcome: 'unscannable', reason: name }
      : { outcome: 'infected', signature: name };
  }
  if (/^(?:stream: )?OK$/.test(reply)) return { outcome: 'clean' };
  throw new ScannerUnavailableError(`clamd gave no verdict: ${reply.slice(0, 200)}`);
}
