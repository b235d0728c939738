import { spawn } from 'node:child_process';
import { freePort } from '../helpers/ports.js';

/**
 * `BENCH_METRICS`: the benches' contender with metrics on. A service started with
 * `metricsEnv()` counts everything; `scrapeEverySecond` reads its `/metrics` as an eager
 * Prometheus would (every second, against the usual 15 to 60), so the contender pays for
 * both the counting and the scrapes.
 */
export const BENCH_METRICS = process.env.BENCH_METRICS === '1';

/** The settings of a service with metrics on a known loopback port, and that port's URL. */
export async function metricsEnv(): Promise<{ env: Record<string, string>; url: string }> {
  const port = await freePort();
  return { env: { FILEHOST_METRICS_PORT: String(port) }, url: `http://127.0.0.1:${port}/metrics` };
}

/**
 * A process of its own that scrapes `url` every second, as Prometheus would, until stopped
 * (the benches block their own event loop while wrk runs). `stop` throws if any scrape
 * failed or none was answered.
 */
export function scrapeEverySecond(url: string): { stop(): Promise<void> } {
  const script = `
    let answered = 0, failed = 0;
    const timer = setInterval(() => {
      fetch(process.argv[1]).then(async (r) => { await r.text(); if (r.status === 200) answered++; else failed++; },
        () => failed++);
    }, 1000);
    process.on('SIGTERM', () => { clearInterval(timer); console.log(JSON.stringify({ answered, failed })); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script, url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      const { answered, failed } = JSON.parse(output) as { answered: number; failed: number };
      if (failed > 0 || answered === 0) {
        throw new Error(`scrapes of ${url}: ${answered} answered, ${failed} failed`);
      }
    },
  };
}
