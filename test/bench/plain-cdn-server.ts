import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';

/**
 * The runtime's own limit for the CDN (`bench:serving`): plain `node:http` answering
 * `GET /<name>` for the files of a folder with the headers the CDN sends for them (the
 * same bytes on the wire, bar `Date`), nothing else: no routing, no checks. `memory`
 * holds each file's bytes and sends them with `end()`; `disk` streams the file from disk
 * per request (`createReadStream`, Node's default chunk). Usage:
 * `plain-cdn-server.ts memory|disk <folder> <headers.json>`, where the JSON maps each
 * file's name to its headers.
 */
const [mode = 'memory', dir = '/tmp', headersFile = ''] = process.argv.slice(2);
const headersByName = JSON.parse(await readFile(headersFile, 'utf8')) as Record<
  string,
  Record<string, string>
>;
const files = new Map<string, { headers: Record<string, string>; bytes: Buffer; path: string }>();
for (const [name, headers] of Object.entries(headersByName)) {
  const path = join(dir, name);
  files.set(`/${name}`, { headers, bytes: await readFile(path), path });
}

const server = createServer((request, response) => {
  const file = files.get(request.url ?? '');
  if (!file) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, file.headers);
  if (mode === 'memory') {
    response.end(file.bytes);
    return;
  }
  createReadStream(file.path)
    .on('error', () => response.destroy())
    .pipe(response);
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`PORT ${address.port}`);
});
