import { formatBytes, pluralForm } from '../shared/format.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';

/** How far back the speed looks: long enough to be steady, short enough to follow a slower link. */
const WINDOW_MS = 5000;
/** Nothing is said before this much of an upload has been seen (its first bytes only fill buffers). */
const FIRST_ESTIMATE_MS = 1500;

/**
 * A large file's upload speed and time left (the part sender measures them; a file of one
 * part is done too soon to need them), as a person reads them: measured over the last few seconds of its
 * progress (not since it started, so a link that slows down shows it soon, and a stalled
 * one slows down on screen too), and said only once there is enough to go by.
 */
export class UploadRate {
  /** [time (ms), bytes sent] of each progress report, oldest first: one before the window. */
  readonly #samples: number[][] = [];

  sample(bytes: number, now = performance.now()): void {
    const samples = this.#samples;
    samples.push([now, bytes]);
    while (now - (samples[1]?.[0] ?? now) > WINDOW_MS) samples.shift();
  }

  /** Bytes a second (up to now: a link that stopped reporting has slowed down), or null. */
  bytesPerSecond(now = performance.now()): number | null {
    const [start = now, from = 0] = this.#samples[0] ?? [];
    const sent = (this.#samples.at(-1)?.[1] ?? 0) - from;
    return now - start < FIRST_ESTIMATE_MS || sent <= 0 ? null : (sent * 1000) / (now - start);
  }

  /**
   * "12 MB/s · 2 minutes left" in the element's language (`Intl` writes the numbers and
   * units, the translation the words around them), or null while there is nothing to say
   * yet. Time left as a person says it: seconds (by fives) under a minute, then minutes,
   * then hours.
   */
  pace(
    bytesLeft: number,
    texts: FileUploaderStrings,
    locale: string,
    now = performance.now(),
  ): string | null {
    const speed = this.bytesPerSecond(now);
    if (!speed) return null;
    const seconds = bytesLeft / speed;
    const [count, unit] =
      seconds < 60
        ? [Math.max(5, Math.ceil(seconds / 5) * 5), 'second']
        : seconds < 3600
          ? [Math.ceil(seconds / 60), 'minute']
          : [Math.round(seconds / 360) / 10, 'hour'];
    const duration = new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' });
    // A number and its unit never wrap apart ("10 / seconds" on two lines of a narrow row).
    const together = (text: string) => text.replace(/ /g, '\u00a0');
    return `${together(formatBytes(speed, locale, true))} · ${texts.timeLeft(together(duration.format(count)), pluralForm(count, locale))}`;
  }
}
