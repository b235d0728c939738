import { createServer } from 'node:http';
import { FileStore } from '@tus/file-store';
import { Server } from '@tus/server';

/** The peer: @tus/server with its file store, in its own process (like the service). */
const directory = process.argv[2] ?? '/tmp/tus';
const tus = new Server({ path: '/files', datastore: new FileStore({ directory }) });
const server = createServer((request, response) => void tus.handle(request, response));
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`PORT ${address.port}`);
});
