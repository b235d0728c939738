/**
 * Lookups by key asked during one turn of the event loop, answered by one fetch of all of
 * them: for a read run for nearly every request (the CDN's lookup of a file at scale),
 * where a round trip per request costs the database a wake-up and a statement each, and
 * the client a pool checkout each. The fetch starts once the turn's I/O has been read
 * (`setImmediate`), so a lookup waits for no timer; a fetch that fails fails every lookup
 * of its batch.
 */
export class LookupBatch<V> {
  readonly #fetch: (keys: string[]) => Promise<Map<string, V>>;
  #pending: Map<
    string,
    { resolve: (value: V | null) => void; reject: (error: unknown) => void }[]
  > | null = null;

  /** `fetch` answers the values found for `keys` (distinct), a missing key absent. */
  constructor(fetch: (keys: string[]) => Promise<Map<string, V>>) {
    this.#fetch = fetch;
  }

  get(key: string): Promise<V | null> {
    return new Promise((resolve, reject) => {
      if (this.#pending === null) {
        this.#pending = new Map();
        setImmediate(() => this.#flush());
      }
      const waiting = this.#pending.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.#pending.set(key, [{ resolve, reject }]);
    });
  }

  #flush(): void {
    const batch = this.#pending;
    this.#pending = null;
    if (batch === null) return;
    this.#fetch([...batch.keys()]).then(
      (found) => {
        for (const [key, waiting] of batch) {
          const value = found.get(key) ?? null;
          for (const { resolve } of waiting) resolve(value);
        }
      },
      (error: unknown) => {
        for (const waiting of batch.values()) for (const { reject } of waiting) reject(error);
      },
    );
  }
}
