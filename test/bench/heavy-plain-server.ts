import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { moduleWorker } from '../../src/server/ground/module-worker.js';
import { holdTickEntryShape } from '../../src/server/start/hold-tick-shape.js';

/**
 * Plain `node:http` from memory (`plain-cdn-server.ts`, same arguments) in a process as heavy
 * as the service's: `HEAVY=modules` first imports every module the service's start-up imports
 * (without starting it); `HEAVY=service` also starts the service, idle, on ports of its own
 * (configured by the `FILEHOST_*` variables); `HEAVY=service-api` then has `curl` (another
 * process, as a real client) upload `HEAVY_UPLOADS` (20) files of 1 KiB through the service's
 * API before plain `node:http` serves. For `cdn-process-probe.ts`: whether what a cached
 * answer costs beyond plain `node:http` is the process's (heap, code, GC), what the API's
 * traffic leaves in `node:http`'s shared code, or the CDN path's.
 */
holdTickEntryShape();
const heavy = process.env.HEAVY ?? 'modules';
const { startService } = await import('../../src/server/start/service.js');
if (heavy === 'service' || heavy === 'service-api') {
  const { configFromEnv } = await import('../../src/server/start/config-from-env.js');
  const service = await startService(configFromEnv());
  // Asynchronously: the service answering the uploads runs on this process's event loop.
  const run = promisify(execFile);
  const uploads = heavy === 'service-api' ? Number(process.env.HEAVY_UPLOADS ?? 20) : 0;
  for (let round = 0; round < uploads; round++) {
    await run('curl', [
      '-sf',
      '-X',
      'POST',
      '--data-binary',
      `${round}`.repeat(1024).slice(0, 1024),
      '-H',
      `Authorization: Bearer ${service.defaultProject.secretKey}`,
      '-H',
      'Content-Type: application/octet-stream',
      '-H',
      `X-Filename: used-${round}.bin`,
      `${service.apiUrl}/v1/upload`,
    ]);
  }
}
// `SERVE=memory-path` serves the CDN's memory path (`memory-path-server.ts`) instead of plain
// `node:http`; `SERVE_THREAD=worker` serves from a worker thread, an isolate of its own
// beside the service's (what a CDN on its own thread would have; test/bench/README.md).
const serve = process.env.SERVE === 'memory-path' ? 'memory-path-server' : 'plain-cdn-server';
if (process.env.SERVE_THREAD === 'worker') {
  moduleWorker(import.meta.url, serve, { argv: process.argv.slice(2) });
} else {
  await import(`./${serve}.ts`);
}
