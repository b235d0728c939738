import { close, createWriteStream, fsync, open } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

/**
 * The yardstick for ingest: plain `node:http` streaming a PUT body to a file, nothing else.
 * With PLAIN_FSYNC=1 it also flushes the file before answering, as the service does.
 */
const dir = process.argv[2] ?? '/tmp';
const withFsync = process.env.PLAIN_FSYNC === '1';
let counter = 0;

const server = createServer(async (request, response) => {
  // Pages on another origin PUT here too (the browser bench): the least CORS that allows it.
  response.setHeader('Access-Control-Allow-Origin', request.headers.origin ?? '*');
  if (request.method === 'OPTIONS') {
    response
      .writeHead(204, {
        'Access-Control-Allow-Methods': 'PUT',
        'Access-Control-Allow-Headers': 'Content-Type',
      })
      .end();
    return;
  }
  const path = join(dir, `plain-${process.pid}-${counter++}`);
  try {
    await pipeline(request, createWriteStream(path));
    if (withFsync) {
      await new Promise<void>((resolve, reject) =>
        open(path, 'r+', (error, fd) => {
          if (error) return reject(error);
          fsync(fd, (syncError) => close(fd, () => (syncError ? reject(syncError) : resolve())));
        }),
      );
    }
    response.writeHead(201).end(path);
    // The browser bench sends 256 MiB a run: keep the disk clean unless asked to keep it.
    if (process.env.PLAIN_DELETE === '1') await rm(path, { force: true });
  } catch {
    response.writeHead(500).end();
  }
});
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`PORT ${address.port}`);
});
