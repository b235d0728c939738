import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { addressGroup } from '../rate-limit/address-group.js';

/**
 * At most `max` connections at once from one client address (an IPv6 client's /64): a client that opens
 * connections without end (each held open by a slow body, say) cannot take every socket
 * the process has. One over the cap is closed at once, before anything of it is read (an
 * answer written to it would race the request the server reads from it); clients take it
 * as the network failure it looks like, and retry later. Behind a proxy every client has
 * the proxy's address, so there the proxy caps (nginx: `limit_conn`) and this is not
 * installed.
 */
export function capConnectionsPerClient(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    // One IPv6 client holds a whole /64: its addresses count together (`addressGroup`).
    const address = addressGroup(socket.remoteAddress ?? '');
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
