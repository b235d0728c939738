/**
 * Gathers calls made close together into one request: each `add` resolves with its own
 * result, while `send` carries every item that arrived within `windowMs` of the first
 * (at most `max`). `send` answers one settled result per item, in order, so one item's
 * failure is that item's alone.
 *
 * With `first` (at most `max`), a burst of items (many added at once) goes out in growing
 * calls: the first carries `first` items and goes at once, each next one up to four times
 * as many, up to `max`; a call sent by the window's end ends the burst. What waits on the first items
 * (their PUTs) can then start long before a call of `max` would have been answered.
 */
export class Batcher<Item, Result> {
  readonly #send: (items: Item[]) => Promise<PromiseSettledResult<Result>[]>;
  readonly #windowMs: number;
  readonly #max: number;
  readonly #first: number;
  /** How many items close the batch now being gathered. */
  #size: number;
  #queue: {
    item: Item;
    signal?: AbortSignal;
    resolve: (value: Result) => void;
    reject: (reason: unknown) => void;
  }[] = [];
  #timer?: ReturnType<typeof setTimeout>;

  constructor(
    send: (items: Item[]) => Promise<PromiseSettledResult<Result>[]>,
    options: { windowMs: number; max: number; first?: number },
  ) {
    this.#send = send;
    this.#windowMs = options.windowMs;
    this.#max = options.max;
    this.#first = options.first ?? options.max;
    this.#size = this.#first;
  }

  /**
   * With `signal`: an item stopped before its call leaves is not sent (the others go
   * without it); it rejects with the signal's reason. (Looked at as the call leaves, not
   * listened to: one signal may stop hundreds of items, Node warns past 10 listeners.)
   */
  add(item: Item, signal?: AbortSignal): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, signal, resolve, reject });
      if (this.#queue.length >= this.#size) this.#flush(true);
      else this.#timer ??= setTimeout(() => this.#flush(false), this.#windowMs);
    });
  }

  #flush(full: boolean): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    // A stopped item is rejected (which answers nothing: left out) instead of sent.
    const batch = this.#queue
      .splice(0, this.#size)
      .filter(({ signal, reject }) => !signal?.aborted || reject(signal.reason));
    this.#size = full ? Math.min(this.#max, this.#size * 4) : this.#first;
    if (this.#queue.length) this.#timer = setTimeout(() => this.#flush(false), this.#windowMs);
    if (batch.length === 0) return;
    this.#send(batch.map((entry) => entry.item)).then(
      (results) =>
        batch.forEach((entry, index) => {
          const result = results[index];
          if (result?.status === 'fulfilled') entry.resolve(result.value);
          else entry.reject(result ? result.reason : new Error('No result for this item.'));
        }),
      (error: unknown) => {
        for (const entry of batch) entry.reject(error);
      },
    );
  }
}

/** Runs each item on its own: how a batch is retried when the batch call itself fails. */
export function eachAlone<Item, Result>(
  items: Item[],
  run: (item: Item) => Promise<Result>,
): Promise<PromiseSettledResult<Result>[]> {
  return Promise.allSettled(items.map(run));
}
