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

/** Scrapes `url` every second until stopped; throws on stop if any scrape failed. */
export function scrapeEverySecond(url: string): { stop(): void } {
  let failure: unknown = null;
  let scrapes = 0;
  const timer = setInterval(() => {
    fetch(url)
      .then(async (response) => {
        if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
        await response.text();
        scrapes++;
      })
      .catch((error: unknown) => {
        failure ??= error;
      });
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      if (failure) throw failure;
      if (scrapes === 0) throw new Error(`no scrape of ${url} was answered`);
    },
  };
}
