/**
 * Jobs run a few at a time, served in turn across keys: each key (a client address, a
 * project) has its own queue, and when a place frees the next job comes from the key that
 * was served longest ago among those that may run one now. So one key's many jobs delay
 * another key's job by at most one job per other key waiting, never by the whole of its
 * queue (decisions.md, "Scanning is bounded and fair").
 *
 * p-queue and its kin run one FIFO with one bound; turns across keys and a bound per key
 * are what this adds, and all it does.
 */
export class FairTurns {
  readonly #concurrency: number;
  #running = 0;
  /** The keys with jobs waiting or running; a key is dropped once it has neither. */
  readonly #keys = new Map<string, KeyQueue>();
  /** Keys with jobs waiting, the one served longest ago (or never) first. */
  readonly #turns: string[] = [];

  /** `concurrency`: jobs running at once, at most. */
  constructor(concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new TypeError(`concurrency must be a whole number from 1, not ${concurrency}`);
    }
    this.#concurrency = concurrency;
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running;
  }

  /** Jobs waiting for their turn. */
  get waiting(): number {
    let waiting = 0;
    for (const queue of this.#keys.values()) waiting += queue.waiting.length;
    return waiting;
  }

  /**
   * Runs `job` in `key`'s turn, with at most `perKey` of that key's jobs running at once
   * (a job waits while as many of its key's are running, even if places are free); settles
   * as the job does.
   */
  run<T>(key: string, perKey: number, job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const queue = this.#queueOf(key);
      // A job that throws at once settles its promise, as one that rejects.
      const start = () =>
        new Promise<T>((started) => started(job())).then(
          (value) => () => resolve(value),
          (error: unknown) => () => reject(error),
        );
      queue.waiting.push({ perKey, start });
      if (queue.waiting.length === 1) this.#turns.push(key);
      this.#startWhatMay();
    });
  }

  /**
   * Runs `job` at once if it would not overtake anyone (nothing waits, a place is free and
   * its key has fewer than `perKey` running); else null, and nothing is queued.
   */
  runNow<T>(key: string, perKey: number, job: () => Promise<T>): Promise<T> | null {
    if (this.#turns.length > 0 || this.#running >= this.#concurrency) return null;
    if ((this.#keys.get(key)?.running ?? 0) >= perKey) return null;
    return this.run(key, perKey, job);
  }

  #queueOf(key: string): KeyQueue {
    let queue = this.#keys.get(key);
    if (!queue) {
      queue = { running: 0, waiting: [] };
      this.#keys.set(key, queue);
    }
    return queue;
  }

  #startWhatMay(): void {
    while (this.#running < this.#concurrency) {
      const at = this.#turns.findIndex((key) => {
        const queue = this.#keys.get(key) as KeyQueue;
        return queue.running < (queue.waiting[0] as Waiting).perKey;
      });
      if (at === -1) return;
      const key = this.#turns.splice(at, 1)[0] as string;
      const queue = this.#keys.get(key) as KeyQueue;
      const next = queue.waiting.shift() as Waiting;
      // Served: to the back of the turns, behind every key that waits.
      if (queue.waiting.length > 0) this.#turns.push(key);
      queue.running++;
      this.#running++;
      void next.start().then((settleCaller) => {
        // Its place is free before its caller hears of it.
        queue.running--;
        this.#running--;
        if (queue.running === 0 && queue.waiting.length === 0) this.#keys.delete(key);
        this.#startWhatMay();
        settleCaller();
      });
    }
  }
}

interface Waiting {
  perKey: number;
  /** Starts the job; once it has settled, answers how to tell its caller (never rejects). */
  start: () => Promise<() => void>;
}

interface KeyQueue {
  running: number;
  waiting: Waiting[];
}
