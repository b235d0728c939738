import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { answerInFlight } from '../http/server-options.js';

/** How long a stop may take (decisions.md, "Operating the service": Draining). */
export interface ShutdownTiming {
  /** From the signal on, new connections are still served this long, for a load balancer to notice `/readyz`. */
  drainMs: number;
  /** The whole stop, from the signal to the exit: what is under way past it is cut. */
  shutdownMs: number;
}

/**
 * The requests an instance's servers are answering, from their arrival to their answer's
 * end (or their connection's), whichever path answers them (the CDN's memory and direct
 * paths answer before the framework sees a request). Once draining, every answer says
 * `Connection: close`, so no kept-alive connection carries one more request to an
 * instance that is about to stop listening.
 *
 * Until then nothing is done per request: the answers under way are found when asked,
 * among the servers' open connections (`answerInFlight`, the servers' own bookkeeping). A
 * listener and a `close` listener per answer cost a fifth of what a small CDN answer from
 * memory costs beyond plain `node:http` (test/bench/README.md); draining is rare.
 */
export class RequestsUnderWay {
  #draining = false;
  readonly #servers: Server[] = [];
  readonly #connections = new Set<Socket>();
  /** Once draining: the answers under way, each followed to its end. */
  readonly #followed = new Set<ServerResponse>();
  #whenIdle: Array<() => void> = [];

  get count(): number {
    return this.#draining ? this.#followed.size : this.#answersUnderWay().length;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Counts `server`'s requests (its connections, and their answers once draining): a server
   * set up by `answerInOurShape`, whose bookkeeping names each connection's answer.
   */
  watch(server: Server): void {
    this.#servers.push(server);
    server.on('connection', (socket: Socket) => {
      this.#connections.add(socket);
      socket.once('close', () => this.#connections.delete(socket));
    });
  }

  /** From now on: `/readyz` is `503` (it reads `draining`) and connections end after their answer. */
  startDraining(): void {
    if (this.#draining) return;
    this.#draining = true;
    for (const answer of this.#answersUnderWay()) this.#follow(answer);
    for (const server of this.#servers) {
      // Before any other listener sees a request, so none answers it uncounted.
      server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
        response.setHeader('Connection', 'close');
        this.#follow(response);
      });
    }
  }

  /** Once draining: resolves when no request is under way (at once when none is). */
  idle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#whenIdle.push(resolve));
  }

  #answersUnderWay(): ServerResponse[] {
    const answers: ServerResponse[] = [];
    for (const socket of this.#connections) {
      const answer = answerInFlight(socket);
      if (answer && !answer.closed) answers.push(answer);
    }
    return answers;
  }

  #follow(answer: ServerResponse): void {
    if (this.#followed.has(answer)) return;
    this.#followed.add(answer);
    answer.once('close', () => {
      this.#followed.delete(answer);
      if (this.#followed.size === 0) for (const resolve of this.#whenIdle.splice(0)) resolve();
    });
  }
}

export interface DrainedService {
  servers: Server[];
  underWay: RequestsUnderWay;
  /** Work of the service's own that requests start and that may outlive them (imports). */
  backgroundIdle(): Promise<void>;
  /** Stops what the service starts by itself (timers, webhook deliveries) once its attempts end. */
  stopBackground(): Promise<void>;
  /** Closes everything at once: what is still under way is cut. */
  close(): Promise<void>;
  log: FastifyBaseLogger;
}

/** What a stop had to cut when its time ran out (nothing, when all ended in time). */
export interface StopOutcome {
  cutRequests: number;
  cutBackground: boolean;
}

/**
 * A stop without loss (decisions.md, "Draining"): `/readyz` answers `503` at once; every
 * connection, new or kept alive, is still served for `drainMs` (each closed after its
 * answer) while a load balancer notices; then the
 * listeners close (a connection attempt is refused, which a proxy retries on another
 * instance) and what is under way (a part PUT, a scan, an import, a webhook delivery)
 * finishes; then everything closes. Nothing is cut before `shutdownMs` from the signal.
 */
export async function drainThenClose(
  service: DrainedService,
  timing: ShutdownTiming,
): Promise<StopOutcome> {
  const started = Date.now();
  const left = () => Math.max(0, started + timing.shutdownMs - Date.now());
  const { underWay, log } = service;
  underWay.startDraining();
  // Kept-alive connections stay open through the drain: a client may be sending on one at
  // this very moment, and closing it would cut that request on its way in (a reset the
  // client cannot safely retry when it is a POST). Each is answered with `Connection:
  // close` instead, and so ends cleanly; the ones never used again are closed at the end.
  log.info(
    { drainMs: timing.drainMs, shutdownMs: timing.shutdownMs },
    'draining: /readyz answers 503',
  );
  await sleep(Math.min(timing.drainMs, left()));

  for (const server of service.servers) stopAccepting(server);
  log.info({ underWay: underWay.count }, 'draining: no longer listening');
  const requestsDone = await within(underWay.idle(), left());
  const backgroundDone =
    requestsDone &&
    (await within(
      service.backgroundIdle().then(() => service.stopBackground()),
      left(),
    ));
  const outcome = {
    cutRequests: requestsDone ? 0 : underWay.count,
    cutBackground: !backgroundDone,
  };
  if (outcome.cutRequests > 0 || outcome.cutBackground) {
    log.warn(outcome, 'the shutdown bound ran out: what was still under way is cut');
  }
  await service.close();
  return outcome;
}

/**
 * Stops taking new connections, leaving the open ones open. `node:http`'s `server.close()`
 * would also close every connection without a request under way (Node >= 19), among them a
 * proxy's pooled connection it is sending a POST on at that moment, and a connection just
 * accepted whose request has not been read yet: each such request would be reset unanswered,
 * and nginx does not resend a POST (a fresh-clone CI run lost an upload that way behind
 * nginx). Left open, each is answered with `Connection: close` while what is under way
 * finishes; the final close ends those never used again.
 */
function stopAccepting(server: Server): void {
  NetServer.prototype.close.call(server);
}

/** Whether `work` settled within `ms` (it is left to run either way). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  const settled = work.then(
    () => true,
    () => true,
  );
  const outcome = await Promise.race([
    settled,
    sleep(ms, false, { signal: timer.signal }).catch(() => false),
  ]);
  timer.abort();
  return outcome;
}
