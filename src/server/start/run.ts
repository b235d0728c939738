import { existsSync } from 'node:fs';
import type { ServiceConfig } from '../ground/config.js';
import { configFromEnv, describeStartError } from './config-from-env.js';

/**
 * The shared life of a command-line entry (`npm run server`, `npm start`): read `.env` and
 * the `FILEHOST_*` variables, start, stop cleanly once on SIGINT/SIGTERM, and explain a
 * failure to start in one sentence.
 */
export function runUntilSignal(
  start: (config: ServiceConfig) => Promise<{ stop: () => Promise<void> }>,
): void {
  const main = async () => {
    // A `.env` file in the working directory is read as an extra; real variables win.
    if (existsSync('.env')) process.loadEnvFile('.env');
    const started = start(configFromEnv());
    // Listened for before the start ends, not after: whoever reads the banner may signal at
    // once, and a signal with no listener yet would kill the process without a clean stop.
    // A signal during the start waits for it, then stops (a failed start exits below).
    let stopping = false;
    const onSignal = async (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      console.log(`\n${signal}: stopping filehost…`);
      // A start that failed is explained, and ends the process, below.
      const service = await started.catch(() => null);
      if (!service) return;
      try {
        await service.stop();
      } catch (error) {
        console.error('filehost did not stop cleanly:', error);
        process.exit(1);
      }
      console.log('filehost stopped');
      process.exit(0);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    await started;
  };
  main().catch((error: unknown) => {
    console.error(describeStartError(error));
    process.exit(1);
  });
}
