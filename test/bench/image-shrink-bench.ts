/**
 * `npm run bench:images`: a 24-megapixel JPEG made smaller in Chromium (#20), as
 * `<file-uploader max-image-width="2048" max-image-height="2048">` does it (decoded, turned
 * upright, scaled and encoded in a worker), beside the usual way of doing it on the page's
 * main thread (an <img>-free `createImageBitmap`, a canvas, `toBlob`), in the same run,
 * alternating. Prints per run: seconds, the browser's peak memory above its idle level
 * (resident memory of all its processes, sampled every 20 ms), and the longest the page's
 * main thread was kept from a 10 ms timer (what a user feels as a frozen page).
 * BENCH_RUNS (default 3).
 */
import { execFileSync } from 'node:child_process';
import { chromium, type Page } from 'playwright-core';
import { servePage } from '../helpers/page-server.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { makePhoto } from './photo.js';
import { type BenchRow, median, reportRows } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WIDTH = 6000;
const HEIGHT = 4000;
const BOUND = 2048;

interface Run {
  seconds: number;
  peakMiB: number;
  stallMs: number;
  bytesOut: number;
}

/** Resident memory of every process of this browser (its profile directory names them). */
function browserRssKiB(profileMark: string): number {
  const table = execFileSync('ps', ['-eo', 'rss=,args='], { encoding: 'utf8' });
  let total = 0;
  for (const line of table.split('\n')) {
    if (!line.includes(profileMark) && !line.includes('--type=')) continue;
    if (!line.includes('chrom')) continue;
    total += Number.parseInt(line.trim(), 10) || 0;
  }
  return total;
}

async function measure(page: Page, way: 'worker' | 'main', profileMark: string): Promise<Run> {
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
  const idle = browserRssKiB(profileMark);
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, browserRssKiB(profileMark));
  }, 20);
  const result = await page.evaluate(
    async ([way, bound]) => {
      const photo = (window as unknown as { photo: File }).photo;
      let last = performance.now();
      let stall = 0;
      const timer = setInterval(() => {
        const now = performance.now();
        stall = Math.max(stall, now - last);
        last = now;
      }, 10);
      const started = performance.now();
      let out: Blob;
      if (way === 'worker') {
        const shrink = (window as unknown as { shrinkImage: (f: File, o: object) => Promise<File> })
          .shrinkImage;
        out = await shrink(photo, { maxWidth: bound, maxHeight: bound, quality: 0.85, type: null });
      } else {
        // The usual way, all on the page: decode, draw smaller, encode.
        const bitmap = await createImageBitmap(photo);
        const scale = Math.min(1, bound / bitmap.width, bound / bitmap.height);
        const canvas = document.createElement('canvas');
        canvas.width = Math.round(bitmap.width * scale);
        canvas.height = Math.round(bitmap.height * scale);
        const context = canvas.getContext('2d') as CanvasRenderingContext2D;
        context.imageSmoothingQuality = 'high';
        context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
        bitmap.close();
        out = await new Promise<Blob>((resolve) =>
          canvas.toBlob((blob) => resolve(blob as Blob), 'image/jpeg', 0.85),
        );
      }
      const seconds = (performance.now() - started) / 1000;
      clearInterval(timer);
      return { seconds, stallMs: stall, bytesOut: out.size };
    },
    [way, BOUND] as const,
  );
  clearInterval(sampler);
  peak = Math.max(peak, browserRssKiB(profileMark));
  return { ...result, peakMiB: (peak - idle) / 1024 };
}

async function main(): Promise<void> {
  const page0 = await servePage(
    '<!doctype html><script type="module" src="/bundle.js"></script>',
    'test/bench/image-page.ts',
  );
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    // tsx names the functions it compiles with a helper the page does not have.
    await page.addInitScript({ content: 'globalThis.__name = (target) => target;' });
    await page.goto(page0.origin);
    await page.waitForFunction(() => 'shrinkImage' in window);
    const bytesIn = await makePhoto(page, WIDTH, HEIGHT);
    console.log(
      `A ${WIDTH} x ${HEIGHT} JPEG of ${(bytesIn / 1024 / 1024).toFixed(1)} MiB, to ${BOUND} px`,
    );
    // Chromium's renderer, GPU and utility processes all carry --type=; the browser's own
    // process is the one with Playwright's profile directory.
    const profileMark = 'playwright_chromium';
    const runs: Record<'worker' | 'main', Run[]> = { worker: [], main: [] };
    // One of each first, not counted: the decoder and encoder warm up.
    await measure(page, 'worker', profileMark);
    await measure(page, 'main', profileMark);
    for (let run = 0; run < RUNS; run++) {
      for (const way of run % 2 === 0
        ? (['worker', 'main'] as const)
        : (['main', 'worker'] as const)) {
        const result = await measure(page, way, profileMark);
        runs[way].push(result);
        console.log(
          `run ${run + 1} ${way.padEnd(6)} ${result.seconds.toFixed(2)} s, peak +${result.peakMiB.toFixed(0)} MiB, longest stall ${result.stallMs.toFixed(0)} ms, ${(result.bytesOut / 1024).toFixed(0)} KiB out`,
        );
      }
    }
    const med = (way: 'worker' | 'main', key: keyof Run) => median(runs[way].map((r) => r[key]));
    const bytesOut = med('worker', 'bytesOut');
    console.log(
      `bytes saved: ${(bytesIn / 1024 / 1024).toFixed(1)} MiB -> ${(bytesOut / 1024).toFixed(0)} KiB (${((1 - bytesOut / bytesIn) * 100).toFixed(0)}% less)`,
    );
    const rows: BenchRow[] = [
      {
        comparison: 'images made smaller in the browser',
        measure: '24 MP JPEG to 2048 px, seconds',
        filehost: med('worker', 'seconds'),
        peer: { name: 'on the main thread', value: med('main', 'seconds') },
        runs: RUNS,
      },
      {
        comparison: 'images made smaller in the browser',
        measure: '24 MP JPEG, peak browser memory above idle, MiB',
        filehost: med('worker', 'peakMiB'),
        peer: { name: 'on the main thread', value: med('main', 'peakMiB') },
        runs: RUNS,
      },
      {
        comparison: 'images made smaller in the browser',
        measure: '24 MP JPEG, longest main-thread stall, ms',
        filehost: med('worker', 'stallMs'),
        peer: { name: 'on the main thread', value: med('main', 'stallMs') },
        runs: RUNS,
      },
      {
        comparison: 'images made smaller in the browser',
        measure: '24 MP JPEG, bytes sent, KiB',
        filehost: bytesOut / 1024,
        peer: { name: 'the original', value: bytesIn / 1024 },
        runs: RUNS,
      },
    ];
    await reportRows(rows);
  } finally {
    await browser.close();
    await page0.close();
  }
}

await main();
