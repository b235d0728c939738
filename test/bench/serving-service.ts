import { runUntilSignal } from '../../src/server/start/run.js';
import { startService } from '../../src/server/start/service.js';

/**
 * The service for `bench:serving`'s mix of files, as `npm run server` runs it (configured by
 * the `FILEHOST_*` variables), with one thing more: asked `"stats"` over the IPC channel its
 * parent opened, it answers how many bodies its CDN has read from the store since it
 * started (`ServingCache.storeReads`), so the bench can say what share of its requests the
 * memory cache answered. Prints `CDN <url>`, `API <url>` and `KEY <secret key>` once ready.
 */
runUntilSignal(async (config) => {
  const service = await startService(config);
  const cache = service.context.servingCache;
  process.on('message', (message) => {
    if (message === 'stats') process.send?.({ storeReads: cache.storeReads, ...cache.size });
  });
  console.log(
    `API ${service.apiUrl}\nCDN ${service.cdnUrl}\nKEY ${service.defaultProject.secretKey}`,
  );
  return { stop: () => service.close() };
});
