import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * The internet cannot be reached here, so a server on 127.0.0.2 stands in for a public one
 * (the service is told so by a setting no environment variable reaches); 127.0.0.1,
 * `localhost` and every other private form stay private.
 */
export const PUBLIC_STAND_IN = '127.0.0.2';

export type RemoteHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  socket: Socket,
) => void;

/**
 * A real HTTP server on `host` and a free port, for the service to fetch from (imports),
 * whose close also ends the connections it holds open (slow and endless bodies).
 */
export async function serveRemote(
  host: string,
  handler: RemoteHandler,
): Promise<{ url: string; server: Server }> {
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => handler(request, response, request.socket));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}`, server };
}
