/**
 * Progress of a long admin command on the terminal (stderr, so stdout keeps only the
 * result): on a TTY one line rewritten in place, a few times a second at most; otherwise
 * (a log file, a pipe, cron's mail) a plain line every few seconds, since `\r` there only
 * piles up into one unreadable line.
 */
export class ProgressLine {
  readonly #out: NodeJS.WritableStream & { isTTY?: boolean };
  readonly #everyMs: number;
  #last = 0;
  #shown = '';
  /** The latest state given, shown or not: what `finish` leaves on screen. */
  #latest = '';

  constructor(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr) {
    this.#out = out;
    this.#everyMs = out.isTTY ? 100 : 2000;
  }

  /** Shows `text` unless a line was shown too recently (`force`: show it anyway). */
  update(text: string, force = false): void {
    this.#latest = text;
    const now = Date.now();
    if (!force && now - this.#last < this.#everyMs) return;
    this.#last = now;
    if (this.#out.isTTY) {
      // `\x1b[K` clears what a longer earlier line left to the right.
      this.#out.write(`\r${text}\x1b[K`);
    } else {
      this.#out.write(`${text}\n`);
    }
    this.#shown = text;
  }

  /**
   * Ends the line: its latest state stays on screen (written now unless it was the last one
   * shown), and what follows starts below it.
   */
  finish(): void {
    const text = this.#latest;
    if (!text) return;
    if (this.#out.isTTY) this.#out.write(`\r${text}\x1b[K\n`);
    else if (text !== this.#shown) this.#out.write(`${text}\n`);
    this.#shown = '';
    this.#latest = '';
    this.#last = 0;
  }

  /** Something to say between updates (a warning): on its own line, not over the progress. */
  note(text: string): void {
    if (this.#out.isTTY && this.#shown) this.#out.write('\n');
    this.#out.write(`${text}\n`);
    this.#shown = '';
  }
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** 1234567 → "1.2 MB" (decimal units, as `df -H` and file managers show sizes). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/** Counts as people read them: 12,345. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** "1 file", "12,345 files": a count with its noun. */
export function countOf(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}
