import { existsSync } from 'node:fs';
import { configFromEnv, describeStartError, type ServiceConfig } from './config.js';

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
    const { stop } = await start(configFromEnv());
    let stopping = false;
    const onSignal = async (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      console.log(`\n${signal}: stopping filehost…`);
      await stop();
      console.log('filehost stopped');
      process.exit(0);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  };
  main().catch((error: unknown) => {
    console.error(describeStartError(error));
    process.exit(1);
  });
}
