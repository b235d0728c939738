import type { AttemptOutcome, ClaimedDelivery } from '../db/metadata-store.js';
import { newId } from '../ground/secrets.js';
import type { CoreContext } from '../rules/context.js';
import { nextAttemptAt } from './retry-schedule.js';
import { type AttemptResult, sendWebhook } from './send.js';

/** Deliveries claimed per round trip to the store, and attempts in flight at once. */
const BATCH = 32;
/**
 * How long a claim holds a delivery: twice what an attempt may take at most (its timeout
 * covers resolving the name too) and a margin, so an attempt is made by exactly one
 * instance; a claim whose instance died runs out and the delivery is due again for the
 * others.
 */
export function leaseMs(timeoutMs: number): number {
  return 2 * timeoutMs + 5_000;
}

export interface DelivererOptions {
  /** How often due deliveries (retries) are looked for; new events are sent at once too. */
  pollIntervalMs: number;
}

/**
 * Sends the webhooks of recorded events: claims what is due (any instance may; each
 * delivery by one at a time), makes the attempts, and records each outcome with the next
 * attempt's time from the retry schedule. Events are written by the changes they report
 * (the outbox), so a delivery lost with a crashed process is still in the store and is
 * sent after a restart, by this instance or another one.
 */
export class EventDeliverer {
  readonly #ctx: CoreContext;
  readonly #owner = newId('dlv_');
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | null = null;
  #again = false;
  #stopped = false;

  constructor(ctx: CoreContext) {
    this.#ctx = ctx;
  }

  start(options: DelivererOptions): void {
    this.#timer = setInterval(() => this.kick(), options.pollIntervalMs);
    this.#timer.unref();
    this.kick();
  }

  /** A new event was committed here: send it now rather than at the next poll. */
  kick(): void {
    if (this.#stopped) return;
    this.runDue().catch((error: unknown) =>
      this.#ctx.log.warn({ err: error }, 'webhook deliveries could not be sent now; retrying'),
    );
  }

  /**
   * Makes every attempt that is due now, and answers how many. A call while a run is under
   * way makes that run go round once more instead of running beside it.
   */
  runDue(): Promise<number> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#run().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running?.catch(() => {});
  }

  async #run(): Promise<number> {
    let attempts = 0;
    for (;;) {
      this.#again = false;
      const now = this.#ctx.now();
      const leaseUntil = now + leaseMs(this.#ctx.config.webhookTimeoutMs);
      const due = await this.#ctx.db.claimDeliveries(now, leaseUntil, this.#owner, BATCH);
      await Promise.all(due.map((delivery) => this.#attempt(delivery)));
      attempts += due.length;
      if (this.#stopped || (due.length < BATCH && !this.#again)) return attempts;
    }
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const { config, log } = this.#ctx;
    const result = await sendWebhook(delivery, {
      allowPrivate: config.webhookAllowPrivate,
      timeoutMs: config.webhookTimeoutMs,
      // The real time, whatever clock schedules retries: receivers check it against theirs.
      now: Date.now(),
    });
    const outcome = outcomeOf(delivery, result, this.#ctx.now());
    if (!result.delivered) {
      log.info(
        { event: delivery.eventId, webhook: delivery.webhookId, error: result.error, outcome },
        'webhook attempt failed',
      );
    }
    await this.#ctx.db.finishAttempt(delivery, outcome);
    this.#ctx.metrics?.webhookAttempt(outcome.status === 'pending' ? 'retrying' : outcome.status);
  }
}

/** What an attempt's result makes of its delivery. */
export function outcomeOf(
  delivery: Pick<ClaimedDelivery, 'attempts'>,
  result: AttemptResult,
  now: number,
): AttemptOutcome {
  if (result.delivered) {
    return { status: 'delivered', nextAttemptAt: null, httpStatus: result.httpStatus, error: null };
  }
  const next = nextAttemptAt(delivery.attempts + 1, now);
  return {
    status: next === null ? 'failed' : 'pending',
    nextAttemptAt: next,
    httpStatus: result.httpStatus,
    error: result.error,
  };
}
