import type { Readable } from 'node:stream';
import type { ClamdAddress } from '../ground/config.js';
import { ClamdSession, ScannerUnavailableError, type ScanVerdict } from './clamd-session.js';
import { FairTurns } from './fair-turns.js';

export {
  ScannerUnavailableError,
  type ScanVerdict,
} from './clamd-session.js';

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
 * Idle sessions kept for the next scans. Past this many (a burst of uploads is over), a
 * session is closed once its scan ends.
 */
const MAX_IDLE_SESSIONS = 16;

/**
 * How long an idle session is kept. clamd closes a session idle for its `ReadTimeout`
 * (120 s by default); closing ours well before means a kept session is almost never one
 * clamd is letting go of at that moment (and `staleConnection` covers the rest).
 */
const IDLE_SESSION_MS = 10_000;

/** Whose turn a scan waits in, and how many of that turn's scans may run at once. */
export interface ScanTurn {
  key: string;
  perKey: number;
}

export interface ClamdScannerOptions {
  /** The longest clamd may take no bytes while they are sent (then: unavailable). */
  silenceMs: number;
  /** The longest clamd may take to answer once it has every byte (then: unscannable). */
  verdictMs: number;
  /** Scans under way at once from this instance; the rest wait their turn. */
  concurrency: number;
}

/**
 * A client of ClamAV's daemon for one kind of request: `INSTREAM`, the file's bytes
 * streamed to it and its verdict back. Scans run on sessions (`IDSESSION`, see
 * `ClamdSession`) kept open between scans and shared by none at a time: a scan takes an
 * idle one or opens one, and gives it back once clamd has answered.
 *
 * At most `concurrency` scans are under way at once; the others wait, served in turn
 * across their `ScanTurn` keys (`FairTurns`), so a client that sends many files that are
 * slow to scan (archive bombs) holds at most its own share of clamd's threads and delays
 * another client's file by at most one scan.
 */
export class ClamdScanner {
  readonly #address: ClamdAddress;
  readonly #timeouts: { silenceMs: number; verdictMs: number };
  readonly #turns: FairTurns;
  /** Sessions waiting for a scan, the most recently used last (taken first, so the others expire). */
  readonly #idle: ClamdSession[] = [];
  readonly #expiries = new Map<ClamdSession, NodeJS.Timeout>();
  /** Told each scan's verdict (`unavailable`: none came) and its time from its turn (metrics). */
  onScanned: ((verdict: ScanVerdict['outcome'] | 'unavailable', seconds: number) => void) | null =
    null;

  constructor(address: ClamdAddress, options: ClamdScannerOptions) {
    this.#address = address;
    this.#timeouts = { silenceMs: options.silenceMs, verdictMs: options.verdictMs };
    this.#turns = new FairTurns(options.concurrency);
  }

  /**
   * Streams the source `open` gives to clamd, in `turn` (opened only once the turn has
   * come); throws `ScannerUnavailableError` when clamd cannot be reached or goes away, and
   * the source's own error when opening or reading it fails.
   */
  scan(
    turn: ScanTurn,
    open: () => Promise<Readable | AsyncIterable<Buffer>>,
  ): Promise<ScanVerdict> {
    return this.#turns.run(turn.key, turn.perKey, async () => this.#scanNow(await open()));
  }

  /**
   * Scans `source` at once if that overtakes no waiting scan and `turn` is within its
   * bound; else null, and `source` is left unread (the file is then scanned later, in turn).
   */
  scanIfFree(
    turn: ScanTurn,
    source: Readable | AsyncIterable<Buffer>,
  ): Promise<ScanVerdict> | null {
    return this.#turns.runNow(turn.key, turn.perKey, () => this.#scanNow(source));
  }

  /** Scans under way, and waiting for their turn (metrics, tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.#turns.running, waiting: this.#turns.waiting };
  }

  async #scanNow(source: Readable | AsyncIterable<Buffer>): Promise<ScanVerdict> {
    const session = this.#take();
    const startedAt = performance.now();
    let verdict: ScanVerdict;
    try {
      verdict = await session.scan(source, this.#timeouts);
      this.onScanned?.(verdict.outcome, (performance.now() - startedAt) / 1000);
    } catch (error) {
      // A kept session clamd had let go of is tried again (`ingest.ts`): not a verdict yet.
      if (error instanceof ScannerUnavailableError && !error.staleConnection) {
        this.onScanned?.('unavailable', (performance.now() - startedAt) / 1000);
      }
      // Kept sessions opened before this one failed may be as dead (clamd restarted).
      if ((error as { staleConnection?: boolean }).staleConnection) this.close();
      throw error;
    }
    this.#giveBack(session);
    return verdict;
  }

  /** Closes the idle sessions (scans under way finish on theirs, which then close). */
  close(): void {
    for (const session of this.#idle.splice(0)) this.#forget(session).close();
  }

  #take(): ClamdSession {
    for (let session = this.#idle.pop(); session; session = this.#idle.pop()) {
      this.#forget(session);
      if (session.usable) return session;
    }
    return new ClamdSession(this.#address, (gone) => {
      const at = this.#idle.indexOf(gone);
      if (at !== -1) this.#idle.splice(at, 1);
      this.#forget(gone);
    });
  }

  #giveBack(session: ClamdSession): void {
    if (!session.usable) return;
    if (this.#idle.length >= MAX_IDLE_SESSIONS) {
      session.close();
      return;
    }
    this.#idle.push(session);
    const expiry = setTimeout(() => {
      const at = this.#idle.indexOf(session);
      if (at !== -1) this.#idle.splice(at, 1);
      this.#forget(session).close();
    }, IDLE_SESSION_MS);
    expiry.unref();
    this.#expiries.set(session, expiry);
  }

  /** Stops the session's idle expiry, if it has one. */
  #forget(session: ClamdSession): ClamdSession {
    clearTimeout(this.#expiries.get(session));
    this.#expiries.delete(session);
    return session;
  }
}
