/**
 * `npm run bench:placeholders`: a page of 50 photos in `<file-list>`, headless Chromium
 * against the reference service (embedded). For each run, 50 new photos are uploaded (so
 * the CDN makes every thumbnail for the first time, as on a fresh page), then the list is
 * opened and the bench records, from the moment the list is given its endpoint:
 * - when every row's placeholder is drawn (its frame painted with the decoded ThumbHash),
 * - when the first thumbnail has loaded, and when all 50 have.
 * The contender is the thumbnail itself, in the same run: a list without placeholders
 * shows each photo only when its thumbnail arrives. Runs are on loopback and, through
 * Chromium's network emulation, on a slow connection (1.6 Mbit/s, 150 ms round trip).
 * BENCH_RUNS (default 3) runs per connection. BENCH_SCREENSHOTS=<dir> also saves the list
 * with its thumbnails held back (placeholders only) and after they arrive, light and dark.
 */

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import sharp from 'sharp';
import { servePage } from '../helpers/page-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { median, reportRows } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PHOTOS = 50;

interface Paint {
  /** Every placeholder drawn, ms after the list was given its endpoint. */
  placeholders: number;
  /** Thumbnails already loaded when the last placeholder was drawn. */
  thumbnailsBeforePlaceholders: number;
  firstThumbnail: number;
  allThumbnails: number;
}

/** A photo-like JPEG: a diagonal two-colour gradient in its own colours and shape (some portrait). */
function photo(index: number, salt: number): Promise<Buffer> {
  const portrait = index % 4 === 0;
  const [width, height] = portrait ? [1067, 1600] : [1600, 1067];
  const from = [(index * 53 + salt * 31) % 256, (index * 97) % 256, (salt * 71 + 128) % 256];
  const to = [255 - (from[0] as number), (from[2] as number) / 2, 255 - (from[1] as number)];
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const t = (x / width + y / height) / 2;
      const at = (y * width + x) * 3;
      for (let c = 0; c < 3; c++)
        pixels[at + c] = (from[c] as number) * (1 - t) + (to[c] as number) * t;
    }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** Watches the list's rows every frame until all thumbnails have loaded. */
function watchPaint(tab: Page, endpoint: string, apiKey: string): Promise<Paint> {
  return tab.evaluate(
    async ([endpoint, apiKey, count]) => {
      const list = document.querySelector('file-list') as HTMLElement;
      const started = performance.now();
      Object.assign(list, { endpoint, apiKey });
      let placeholders = 0;
      let thumbnailsBeforePlaceholders = 0;
      let firstThumbnail = 0;
      for (;;) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const now = performance.now() - started;
        // The newest rows, this run's photos (a tall page may go on to load older ones).
        const frames = [
          ...(list.shadowRoot?.querySelectorAll<HTMLElement>('.picture') ?? []),
        ].slice(0, count);
        const drawn = frames.filter((frame) => frame.style.background.includes('url(')).length;
        const loaded = frames.filter((frame) => {
          const img = frame.querySelector('img');
          return img?.complete && img.naturalWidth > 0;
        }).length;
        if (!placeholders && drawn === count) {
          placeholders = now;
          thumbnailsBeforePlaceholders = loaded;
        }
        if (!firstThumbnail && loaded > 0) firstThumbnail = now;
        if (loaded === count)
          return { placeholders, thumbnailsBeforePlaceholders, firstThumbnail, allThumbnails: now };
        if (now > 120_000) throw new Error(`only ${loaded} of ${count} thumbnails after 2 min`);
      }
    },
    [endpoint, apiKey, PHOTOS] as const,
  );
}

/** The list with its thumbnails held back, then let through, light and dark. */
async function screenshotList(
  browser: Browser,
  origin: string,
  running: TestService,
  dir: string,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const colorScheme of ['light', 'dark'] as const) {
    const tab = await browser.newPage({ viewport: { width: 720, height: 900 }, colorScheme });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await tab.route(`${running.service.cdnUrl}/**`, async (route) => {
      await held;
      await route.continue();
    });
    await tab.goto(origin);
    await tab.waitForFunction(() => customElements.get('file-list'));
    await tab.evaluate(
      ([endpoint, apiKey]) => {
        document.body.style.background = matchMedia('(prefers-color-scheme: dark)').matches
          ? '#0f172a'
          : '#fff';
        Object.assign(document.querySelector('file-list') as HTMLElement, { endpoint, apiKey });
      },
      [running.service.apiUrl, running.service.defaultProject.publishableKey] as const,
    );
    await tab.waitForFunction(
      () =>
        (document.querySelector('file-list')?.shadowRoot?.querySelectorAll('.picture').length ??
          0) >= 10,
    );
    await tab.screenshot({ path: join(dir, `placeholders-${colorScheme}.png`) });
    release();
    await tab.waitForFunction(() =>
      [...(document.querySelector('file-list')?.shadowRoot?.querySelectorAll('.picture img') ?? [])]
        .slice(0, 10)
        .every((img) => (img as HTMLImageElement).complete),
    );
    await tab.screenshot({ path: join(dir, `thumbnails-${colorScheme}.png`) });
    await tab.close();
  }
  console.log(`screenshots in ${dir}`);
}

async function main(): Promise<void> {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin:0;font-family:system-ui"><main style="max-width:720px;margin:0 auto;padding:16px">
<file-list page-size="${PHOTOS}"></file-list></main><script type="module" src="/bundle.js"></script></body></html>`;
  const server = await servePage(html);
  const running = await startTestService({ FILEHOST_ALLOWED_ORIGINS: server.origin });
  const { publishableKey } = running.service.defaultProject;
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const connections = [
    { name: 'loopback', throttle: null },
    {
      name: 'slow connection (1.6 Mbit/s, 150 ms)',
      throttle: { latency: 150, downloadThroughput: 200_000, uploadThroughput: 93_750 },
    },
  ] as const;
  const results = new Map<string, Paint[]>(connections.map(({ name }) => [name, []]));
  let salt = 0;
  try {
    for (let run = 0; run < RUNS; run++) {
      for (const connection of connections) {
        salt++;
        // New photos: the CDN makes each thumbnail for the first time, as on a fresh page.
        for (let index = 0; index < PHOTOS; index++) {
          const response = await running.api('/v1/upload', {
            method: 'POST',
            headers: { 'Content-Type': 'image/jpeg', 'X-Filename': `photo-${salt}-${index}.jpg` },
            body: new Uint8Array(await photo(index, salt)),
          });
          if (response.status !== 201) throw new Error(`upload: ${response.status}`);
        }
        // Tall enough that all 50 rows are on screen (their thumbnails load lazily).
        const tab = await browser.newPage({ viewport: { width: 800, height: 3600 } });
        if (connection.throttle) {
          const cdp = await tab.context().newCDPSession(tab);
          await cdp.send('Network.emulateNetworkConditions', {
            offline: false,
            ...connection.throttle,
          });
        }
        await tab.goto(server.origin);
        await tab.waitForFunction(() => customElements.get('file-list'));
        results
          .get(connection.name)
          ?.push(await watchPaint(tab, running.service.apiUrl, publishableKey));
        await tab.close();
      }
    }
    const screenshots = process.env.BENCH_SCREENSHOTS;
    if (screenshots) await screenshotList(browser, server.origin, running, screenshots);
  } finally {
    await browser.close();
    await running.close();
    await server.close();
  }

  console.log(
    `\nplaceholders bench — ${new Date().toISOString()} — ${PHOTOS} photos, ${RUNS} runs per connection, headless Chromium, thumbnails made on first view\n`,
  );
  const rows = [];
  for (const [name, paints] of results) {
    const at = (pick: (paint: Paint) => number) => median(paints.map(pick));
    console.log(`${name}:`);
    console.log(`  every placeholder drawn: median ${at((p) => p.placeholders).toFixed(0)} ms`);
    console.log(
      `  thumbnails loaded when the last placeholder was drawn: ${paints.map((p) => p.thumbnailsBeforePlaceholders).join(', ')}`,
    );
    console.log(`  first thumbnail: median ${at((p) => p.firstThumbnail).toFixed(0)} ms`);
    console.log(`  every thumbnail: median ${at((p) => p.allThumbnails).toFixed(0)} ms`);
    console.log(
      `  per run, placeholders / every thumbnail: ${paints.map((p) => (p.placeholders / p.allThumbnails).toFixed(2)).join(', ')}`,
    );
    rows.push({
      comparison: `50-photo list, ${name}`,
      measure: 'every placeholder drawn, ms',
      filehost: at((p) => p.placeholders),
      peer: { name: 'every thumbnail loaded', value: at((p) => p.allThumbnails) },
      runs: RUNS,
    });
  }
  await reportRows(rows);
}

await main();
