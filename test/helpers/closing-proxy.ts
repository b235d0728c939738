import { startTcpProxy } from './tcp-proxy.js';

/** How a kept-alive connection is ended under the request that arrives on it. */
export type ConnectionEnd =
  /** An RST, as a server's kernel sends when it closes a socket with the request unread. */
  | 'reset'
  /** A FIN after the request's bytes were read and dropped, as a server closing at once. */
  | 'close';

export interface ClosingProxy {
  /** `http://127.0.0.1:<port>`: an endpoint that is the target's, but for the closing. */
  url: string;
  /** Connections clients opened to the proxy. */
  readonly connections: number;
  /** Requests that arrived on an already-used connection and were ended, unanswered. */
  readonly ended: number;
  /**
   * What the proxy does to a connection that has carried an answer when the next
   * request's first bytes arrive: `null` passes it on. Settable between calls.
   */
  end: ConnectionEnd | null;
  /** Told just before a connection is ended (e.g. to abort the call at that moment). */
  onEnd: (() => void) | null;
  /** Whether a connection that carried no answer yet is ended too (every connection fails). */
  endFresh: boolean;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of `target` (an `http://host:port` origin) that plays the
 * keep-alive race on cue: the server closing a kept-alive connection just as the client's
 * next request arrives on it. The request's bytes never reach the target, so the target
 * has not seen it: a client that sends it again on a new connection gets the target's real
 * answer. Deterministic: the close is triggered by the request's arrival, not by a timer.
 */
export async function startClosingProxy(
  target: string,
  /** Where it listens on loopback (a page's origin known in advance); default: any free port. */
  port = 0,
): Promise<ClosingProxy> {
  const state = {
    connections: 0,
    ended: 0,
    end: null as ConnectionEnd | null,
    onEnd: null as (() => void) | null,
    endFresh: false,
  };
  const proxy = await startTcpProxy(
    new URL(target),
    () => {
      state.connections++;
      let answered = false;
      return {
        fromClient: () => {
          const how = state.end;
          if (!how || !(answered || state.endFresh)) return 'pass';
          state.ended++;
          state.onEnd?.();
          return how;
        },
        fromTarget: () => {
          answered = true;
          return 'pass';
        },
      };
    },
    port,
  );
  return Object.assign(state, {
    url: `http://127.0.0.1:${proxy.port}`,
    close: () => proxy.close(),
  }) as ClosingProxy;
}
