/**
 * Gathers calls made close together into one request: each `add` resolves with its own
 * result, while `send` carries every item that arrived within `windowMs` of the first
 * (at most `max`). `send` answers one settled result per item, in order, so one item's
 * failure is that item's alone.
 */
export class Batcher<Item, Result> {
  readonly #send: (items: Item[]) => Promise<PromiseSettledResult<Result>[]>;
  readonly #windowMs: number;
  readonly #max: number;
  #queue: { item: Item; resolve: (value: Result) => void; reject: (reason: unknown) => void }[] =
    [];
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    send: (items: Item[]) => Promise<PromiseSettledResult<Result>[]>,
    options: { windowMs: number; max: number },
  ) {
    this.#send = send;
    this.#windowMs = options.windowMs;
    this.#max = options.max;
  }

  add(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#queue.length >= this.#max) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), this.#windowMs);
    });
  }

  #flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#queue.splice(0, this.#max);
    if (this.#queue.length > 0) this.#timer = setTimeout(() => this.#flush(), this.#windowMs);
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
