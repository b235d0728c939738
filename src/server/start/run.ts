import { existsSync } from 'node:fs';
import type { ServiceConfig } from '../ground/config.js';
import { configFromEnv, describeStartError } from './config-from-env.js';
import type { ShutdownTiming } from './draining.js';

/** What a started command gives its life to stop it. */
export interface Stoppable {
  /** Stops at once: what is under way is cut. */
  stop: () => Promise<void>;
  /** Stops without loss (`start/draining.ts`); without it, a signal stops at once. */
  drainThenClose?: (timing: ShutdownTiming) => Promise<unknown>;
}

/**
 * The shared life of a command-line entry (`npm run server`, `npm start`): read `.env` and
 * the `FILEHOST_*` variables, start, stop once on SIGTERM or SIGINT, and explain a failure
 * to start in one sentence. SIGTERM drains (`FILEHOST_DRAIN_SECONDS`, then what is under
 * way finishes within `FILEHOST_SHUTDOWN_SECONDS`); SIGINT (Ctrl-C at a terminal) skips
 * the drain but still lets what is under way finish; a second signal stops at once.
 */
export function runUntilSignal(start: (config: ServiceConfig) => Promise<Stoppable>): void {
  const main = async () => {
    // A `.env` file in the working directory is read as an extra; real variables win.
    if (existsSync('.env')) process.loadEnvFile('.env');
    const config = configFromEnv();
    const started = start(config);
    // Listened for before the start ends, not after: whoever reads the banner may signal at
    // once, and a signal with no listener yet would kill the process without a clean stop.
    // A signal during the start waits for it, then stops (a failed start exits below).
    let stopping = false;
    const onSignal = async (signal: NodeJS.Signals) => {
      if (stopping) {
        console.log(`\n${signal} again: stopping filehost now, cutting what is under way`);
        process.exit(1);
      }
      stopping = true;
      const timing = {
        drainMs: signal === 'SIGTERM' ? config.drainSeconds * 1000 : 0,
        shutdownMs: config.shutdownSeconds * 1000,
      };
      // A start that failed is explained, and ends the process, below.
      const service = await started.catch(() => null);
      if (!service) return;
      try {
        if (service.drainThenClose) {
          console.log(
            `\n${signal}: stopping filehost: unready now, serving ${timing.drainMs / 1000} s more, then finishing what is under way (at most ${timing.shutdownMs / 1000} s in all)…`,
          );
          await service.drainThenClose(timing);
        } else {
          console.log(`\n${signal}: stopping filehost…`);
          await service.stop();
        }
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
