import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/**
 * What becomes of one chunk on its way through: `'pass'` it goes on at once (after any held
 * before it); a promise holds it, and every later chunk the same way, until it settles (a
 * stalled peer); `'reset'` or `'close'` cut the connection with the chunk dropped: the client
 * gets an RST (as from a kernel closing a socket with bytes unread) or a FIN, the target's
 * side is closed.
 */
export type ChunkFate = 'pass' | 'reset' | 'close' | Promise<unknown>;

/** A connection's hooks, one per direction; a direction without one passes every chunk. */
export interface Relay {
  /** Each chunk the client sent, before it goes to the target. */
  fromClient?: (chunk: Buffer) => ChunkFate;
  /** Each chunk the target sent, before it goes to the client. */
  fromTarget?: (chunk: Buffer) => ChunkFate;
}

export interface TcpProxy {
  /** The loopback port it listens on. */
  port: number;
  /** Ends every connection through it and stops listening. */
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback in front of `target`, for faults played on cue: `relay` is called
 * for each connection a client opens (its closure keeps that connection's state) and its
 * hooks decide each chunk's fate when the chunk arrives, so a fault is set off by the bytes
 * themselves, not by a timer. Order is kept per direction; an end or close on one side
 * reaches the other after the chunks still held.
 */
export async function startTcpProxy(
  /** A URL (or anything with its `hostname` and `port`): the target's address. */
  target: { hostname: string; port: string | number },
  relay: () => Relay = () => ({}),
  /** Where it listens on loopback (an origin known in advance); default: any free port. */
  port = 0,
): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    open.add(client).add(upstream);
    const hooks = relay();
    const cut = (how: 'reset' | 'close') => {
      if (how === 'reset') client.resetAndDestroy();
      else client.destroy();
      upstream.destroy();
    };
    const forward = (
      from: Socket,
      to: Socket,
      hook: ((chunk: Buffer) => ChunkFate) | undefined,
    ) => {
      // The last step still waiting in this direction: later chunks, and the end, go behind it.
      let held: Promise<void> | null = null;
      /** Runs `step` once what is held before it, and `wait`, settled: at once when nothing is. */
      const inTurn = (step: () => void, wait?: Promise<unknown>) => {
        if (!held && !wait) return step();
        const turn: Promise<void> = Promise.allSettled([held, wait]).then(() => {
          if (held === turn) held = null;
          step();
        });
        held = turn;
      };
      from.on('data', (chunk: Buffer) => {
        const fate = hook ? hook(chunk) : 'pass';
        if (fate === 'reset' || fate === 'close') return cut(fate);
        const write = () => {
          // Reads no faster than the other side takes the bytes.
          if (!to.write(chunk) && !from.isPaused()) {
            from.pause();
            to.once('drain', () => from.resume());
          }
        };
        inTurn(write, fate === 'pass' ? undefined : fate);
      });
      from.on('end', () => inTurn(() => to.end()));
      from.on('close', () => inTurn(() => to.destroy()));
      from.on('error', () => to.destroy());
    };
    forward(client, upstream, hooks.fromClient);
    forward(upstream, client, hooks.fromTarget);
    for (const socket of [client, upstream]) socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
