/**
 * `npm run bench:service-startup`: how long the embedded service takes to start, from
 * spawning `node --import tsx <its main>` to its banner (listening on both ports, the default
 * project ready), on a fresh data directory each run: this checkout against
 * `BENCH_BASELINE` (a revision, default `HEAD~1`), taking turns in one run, median of
 * `BENCH_RUNS` (default 9) each. (`bench:startup` is the element's start-up on a page.)
 */
import { startedToBanner } from '../helpers/service.js';
import { median, withBaselineCheckout } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);

/** Milliseconds from spawn to the banner's last line; the process is stopped after. */
async function startOnce(cwd: string): Promise<number> {
  return (await startedToBanner(cwd)).ms;
}

async function main(): Promise<void> {
  const revision = process.env.BENCH_BASELINE ?? 'HEAD~1';
  await withBaselineCheckout(revision, async (baseline) => {
    const times = { baseline: [] as number[], branch: [] as number[] };
    // One warm-up each (tsx's transform cache, the page cache), not counted.
    await startOnce(baseline);
    await startOnce(process.cwd());
    for (let run = 0; run < RUNS; run++) {
      times.baseline.push(await startOnce(baseline));
      times.branch.push(await startOnce(process.cwd()));
    }
    const a = median(times.baseline);
    const b = median(times.branch);
    console.log(
      [
        `service start-up, median of ${RUNS} (ms), taking turns:`,
        `  A ${revision}: ${a.toFixed(0)}   [${times.baseline.map((t) => t.toFixed(0)).join(' ')}]`,
        `  B this checkout: ${b.toFixed(0)}   [${times.branch.map((t) => t.toFixed(0)).join(' ')}]`,
        `  B / A = ${(b / a).toFixed(3)}`,
      ].join('\n'),
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
