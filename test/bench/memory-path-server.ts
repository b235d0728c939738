import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pino } from 'pino';
import { ServingCache } from '../../src/server/cache/serving-cache.js';
import { answerHead, withRequestId } from '../../src/server/cdn/answer-head.js';
import { buildCdnApp } from '../../src/server/cdn/cdn.js';
import {
  answerFromMemory,
  cdnServerFactory,
  plainFileId,
} from '../../src/server/cdn/memory-path.js';
import type { ServiceContext } from '../../src/server/context.js';
import type { FileRow } from '../../src/server/db/metadata-store.js';
import { answerInOurShape, serverOptions } from '../../src/server/http/server-options.js';
import { configFromEnv } from '../../src/server/start/config-from-env.js';
import { holdTickEntryShape } from '../../src/server/start/hold-tick-shape.js';

/**
 * For `cdn-process-probe.ts` (#54): the CDN's memory path alone over a `ServingCache`
 * holding the folder's files (`/<name>`, the name as the id), on the thread that imports it:
 * a worker thread (`heavy-plain-server.ts`, `SERVE_THREAD=worker`) or the main one. Args as
 * plain-cdn-server.ts. `MP_MODE` takes it apart, a rung at a time: `factory` (the CDN's
 * server, `cdnServerFactory`), `direct` (`answerFromMemory` in a bare server), `lookup` (the
 * URL's id, the cache, the head list with a `randomUUID`), `fixed-id` (the same with one id).
 */
holdTickEntryShape();
const [, dir = '/tmp', headersFile = ''] = process.argv.slice(2);
const mode = process.env.MP_MODE ?? 'factory';
const headersByName = JSON.parse(await readFile(headersFile, 'utf8')) as Record<
  string,
  Record<string, string>
>;
const cache = new ServingCache({
  maxBytes: 64 * 1024 * 1024,
  maxFileBytes: 1024 * 1024,
  trustRecords: true,
});
for (const [name, headers] of Object.entries(headersByName)) {
  const bytes = await readFile(join(dir, name));
  const row = { id: name, size: bytes.length, visibility: 'public' } as unknown as FileRow;
  cache.put(
    name,
    { row, headers, bytes, wholeHead: answerHead(headers, bytes.length) },
    cache.epoch,
  );
}
const notFound = (_request: IncomingMessage, response: ServerResponse) =>
  response.writeHead(404).end();
const FIXED_ID = randomUUID();
const rungs: Record<string, () => Server> = {
  factory: () =>
    cdnServerFactory(cache, { keepAliveTimeout: 5000, connectionTimeout: 60_000 })(
      notFound,
      {},
    ) as Server,
  direct: () =>
    createServer((request, response) => {
      if (!answerFromMemory(cache, request, response)) notFound(request, response);
    }),
  lookup: () =>
    createServer((request, response) => {
      const file = cache.get(plainFileId(request.url ?? '') ?? '');
      if (!file?.bytes || !file.wholeHead) return notFound(request, response);
      response.writeHead(200, withRequestId(file.wholeHead, randomUUID()));
      response.end(file.bytes);
    }),
  'fixed-id': () =>
    createServer((request, response) => {
      const file = cache.get(plainFileId(request.url ?? '') ?? '');
      if (!file?.bytes || !file.wholeHead) return notFound(request, response);
      response.writeHead(200, withRequestId(file.wholeHead, FIXED_ID));
      response.end(file.bytes);
    }),
};
// Two rungs up to the CDN as the service builds it: `shape`, the CDN's server with the
// bookkeeping every server of the service has (`answerInOurShape`); `cdn-app`, the CDN's
// whole app (`buildCdnApp`) over this cache, its stores never asked on the memory path.
const config = configFromEnv({ FILEHOST_DATA_DIR: dir, FILEHOST_LOG_LEVEL: 'silent' });
const log = pino({ level: 'silent' });
rungs.shape = () => {
  const options = serverOptions(config, 'any-origin');
  const server = cdnServerFactory(cache, options)(notFound, {}) as Server;
  answerInOurShape(server, log, config);
  return server;
};
if (mode === 'cdn-app') {
  const ctx = {
    config,
    urls: { api: 'http://127.0.0.1:1', cdn: 'http://127.0.0.1:1' },
    db: {},
    blobs: {},
    servingCache: cache,
    variants: {},
    now: Date.now,
    log,
    linkKey: Buffer.alloc(32),
    metrics: null,
    draining: () => false,
  } as unknown as ServiceContext;
  const app = buildCdnApp(ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address && typeof address === 'object') console.log(`PORT ${address.port}`);
} else {
  const server = (rungs[mode] ?? (rungs.factory as () => Server))();
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') console.log(`PORT ${address.port}`);
  });
}
