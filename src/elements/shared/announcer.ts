import type { ReactiveElement } from 'lit';

/**
 * What an element tells screen readers, through the polite live region (`role="status"`)
 * its template renders empty. The text goes straight into that region rather than through
 * a reactive property: as a property, each of 200 small uploads finishing one after another
 * redrew all 200 rows once more (216 renders in 2 s, a quarter of the upload's time).
 *
 * At most one announcement a second: what is said meanwhile waits and is said together,
 * word for word, so 200 files finishing at once are read as a few sentences, not 200
 * interruptions (a screen reader drops or queues polite updates that come faster).
 */
export class Announcer {
  readonly #host: Pick<ReactiveElement, 'renderRoot'>;
  /**
   * The region, found once: it comes after the list in both templates, so looking it up
   * for each of 200 announcements walked every row each time (60 ms of a 200-file upload).
   */
  #region: Element | null = null;
  /** Sentences waiting for the next second, and when the last announcement was made. */
  #queue: string[] = [];
  #last = 0;

  /** `host`: an element, or any box whose live region the text goes into (a dialog's). */
  constructor(host: Pick<ReactiveElement, 'renderRoot'>) {
    this.#host = host;
  }

  say(text: string): void {
    if (this.#queue.push(text) > 1) return;
    setTimeout(
      () => {
        this.#last = Date.now();
        this.#write(this.#queue.join(' '));
        this.#queue = [];
      },
      this.#last + 1000 - Date.now(),
    );
  }

  #write(text: string): void {
    if (!this.#region?.isConnected)
      this.#region = this.#host.renderRoot?.querySelector?.('[role=status]') ?? null;
    const region = this.#region;
    // The same sentence twice in a row must still be read out: vary it invisibly. (Said a
    // tick after it was asked, the region is drawn by then; an element never drawn says nothing.)
    if (region) region.textContent = region.textContent === text ? `${text}\u00a0` : text;
  }
}
