/**
 * Gathers calls made close together into one request: each `add` resolves with its own
 * result, while `send` carries every item that arrived within `windowMs` of the first
 * (at most `max`). `send` answers one settled result per item, in order, so one item's
 * failure is that item's alone.
 *
 * With `first`, a burst of items (many added at once) goes out in growing calls: the first
 * carries `first` items and goes at once, each next one up to four times as many, up to
 * `max`; a call sent by the window's end ends the burst. What waits on the first items
 * (their PUTs) can then start long before a call of `max` would have been answered.
 *
 * With `hold`, items whose window ends while a call is on its way wait for its answer (at
 * most `hold` ms from the first of them), so that a steady stream of items (files whose
 * bytes land one after another) goes in a few calls rather than one per window: each call
 * costs the page and the service far more than an item in it does. An item alone, with no
 * call on its way, still goes at its window's end.
 */
export class Batcher<Item, Result> {
  readonly #send: (items: Item[]) => Promise<PromiseSettledResult<Result>[]>;
  readonly #windowMs: number;
  readonly #max: number;
  readonly #first: number;
  readonly #hold: number;
  /** How many items close the batch now being gathered. */
  #size: number;
  /** Calls sent and not answered yet. */
  #sending = 0;
  /** When the oldest item waiting was added (ms, `Date.now`). */
  #since = 0;
  /** The window ended while a call was on its way: sent when one is answered (`hold`). */
  #held = false;
  #queue: { item: Item; resolve: (value: Result) => void; reject: (reason: unknown) => void }[] =
    [];
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    send: (items: Item[]) => Promise<PromiseSettledResult<Result>[]>,
    options: { windowMs: number; max: number; first?: number; hold?: number },
  ) {
    this.#send = send;
    this.#windowMs = options.windowMs;
    this.#max = options.max;
    this.#first = Math.min(options.first ?? options.max, options.max);
    this.#hold = options.hold ?? 0;
    this.#size = this.#first;
  }

  add(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      if (this.#queue.length === 0) this.#since = Date.now();
      this.#queue.push({ item, resolve, reject });
      if (this.#queue.length >= this.#size) this.#flush(true);
      else this.#timer ??= setTimeout(() => this.#due(), this.#windowMs);
    });
  }

  /** The window ended: the items go now, or wait for the call on its way (`hold`). */
  #due(): void {
    this.#timer = null;
    const waited = Date.now() - this.#since;
    if (this.#sending > 0 && waited < this.#hold) {
      this.#held = true;
      this.#timer = setTimeout(() => this.#flush(false), this.#hold - waited);
      return;
    }
    this.#flush(false);
  }

  #flush(full: boolean): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#held = false;
    const batch = this.#queue.splice(0, this.#size);
    this.#size = full ? Math.min(this.#max, this.#size * 4) : this.#first;
    if (this.#queue.length > 0) {
      this.#since = Date.now();
      this.#timer = setTimeout(() => this.#due(), this.#windowMs);
    }
    if (batch.length === 0) return;
    this.#sending++;
    this.#send(batch.map((entry) => entry.item))
      .then(
        (results) =>
          batch.forEach((entry, index) => {
            const result = results[index];
            if (result?.status === 'fulfilled') entry.resolve(result.value);
            else entry.reject(result ? result.reason : new Error('No result for this item.'));
          }),
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      )
      .finally(() => {
        this.#sending--;
        if (this.#held) this.#flush(false);
      });
  }
}

/** Runs each item on its own: how a batch is retried when the batch call itself fails. */
export function eachAlone<Item, Result>(
  items: Item[],
  run: (item: Item) => Promise<Result>,
): Promise<PromiseSettledResult<Result>[]> {
  return Promise.allSettled(items.map(run));
}
