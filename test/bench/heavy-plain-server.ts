import { holdTickEntryShape } from '../../src/server/start/hold-tick-shape.js';

/**
 * Plain `node:http` from memory (`plain-cdn-server.ts`, same arguments) in a process as heavy
 * as the service's: `HEAVY=modules` first imports every module the service's start-up imports
 * (without starting it); `HEAVY=service` also starts the service, idle, on ports of its own
 * (configured by the `FILEHOST_*` variables). For `cdn-process-probe.ts`: whether what a cached
 * answer costs beyond plain `node:http` is the process's (heap, code, GC) or the CDN path's.
 */
holdTickEntryShape();
const heavy = process.env.HEAVY ?? 'modules';
const { startService } = await import('../../src/server/start/service.js');
if (heavy === 'service') {
  const { configFromEnv } = await import('../../src/server/start/config-from-env.js');
  await startService(configFromEnv());
}
await import('./plain-cdn-server.js');
