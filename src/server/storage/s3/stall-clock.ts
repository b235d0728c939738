/**
 * The stall rule's clock, for every path that reads an answer from the bucket
 * (`stall-guard.ts`, `body-relay.ts`, `bucket-connections.ts`): it runs while an answer waits
 * for the bucket (`arm`, moved on each time bytes come) and stops while the client is slow
 * to take them (`disarm`), so a reader's pause is never taken for the bucket's silence.
 * One timer, moved on rather than made again for every chunk.
 */
export class StallClock {
  readonly #idleMs: number;
  readonly #onStall: () => void;
  #timer: NodeJS.Timeout | undefined;

  constructor(idleMs: number, onStall: () => void) {
    this.#idleMs = idleMs;
    this.#onStall = onStall;
  }

  arm(): void {
    if (this.#timer) this.#timer.refresh();
    else this.#timer = setTimeout(this.#onStall, this.#idleMs);
  }

  disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
