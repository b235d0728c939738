import type { ReactiveController, ReactiveElement } from 'lit';

/**
 * What an element tells screen readers, through the polite live region (`role="status"`)
 * its template renders empty. The text goes straight into that region rather than through
 * a reactive property: as a property, each of 200 small uploads finishing one after another
 * redrew all 200 rows once more (216 renders in 2 s, a quarter of the upload's time).
 */
export class Announcer implements ReactiveController {
  readonly #host: ReactiveElement;
  /** Said before the region was first drawn: written once it is. */
  #pending: string | null = null;
  /**
   * The region, found once: it comes after the list in both templates, so looking it up
   * for each of 200 announcements walked every row each time (60 ms of a 200-file upload).
   */
  #region: Element | null = null;

  constructor(host: ReactiveElement) {
    this.#host = host;
    host.addController(this);
  }

  hostUpdated(): void {
    if (this.#pending === null) return;
    const text = this.#pending;
    this.#pending = null;
    this.say(text);
  }

  say(text: string): void {
    if (!this.#region?.isConnected)
      this.#region = this.#host.renderRoot?.querySelector?.('[role=status]') ?? null;
    const region = this.#region;
    if (!region) {
      this.#pending = text;
      return;
    }
    // The same sentence twice in a row must still be read out: vary it invisibly.
    region.textContent = region.textContent === text ? `${text}\u00a0` : text;
  }
}
