import type { Browser } from 'playwright-core';

/**
 * A page with one `<file-list>` (no `page-size`: the default page of 50) and the script-tag
 * bundle, for `servePage`.
 */
export const LIST_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin:0;font-family:system-ui"><main style="max-width:720px;margin:0 auto;padding:16px">
<file-list></file-list></main><script type="module" src="/bundle.js"></script></body></html>`;

/** A typical laptop's window, at a pixel ratio of 2 (the thumbnails are asked for at 80 px). */
const VIEWPORT = { width: 1440, height: 900 };
const PIXEL_RATIO = 2;
/** Longer than any draw on a loaded 2-core machine; past it the run fails rather than hangs. */
const DRAW_TIMEOUT_MS = 5 * 60_000;

export interface ListPageBytes {
  /** Bytes the page received for image responses (headers and body, as sent on the wire). */
  bytes: number;
  /** How many image responses those were. */
  images: number;
  /** Their `Content-Type`s, each once (`format=auto`: AVIF for Chromium). */
  types: string[];
  /** From giving the element its endpoint to every thumbnail drawn, scrolled through, ms. */
  drawnMs: number;
}

/**
 * Opens `origin` (a `LIST_PAGE`) in a fresh context (no HTTP cache), points its `<file-list>`
 * at the service, scrolls through the whole list so every lazy thumbnail loads, waits until
 * all `count` are decoded, and sums the bytes of the image responses (CDP
 * `Network.loadingFinished` `encodedDataLength`: cross-origin, Resource Timing would say 0).
 * With `originals`, a route drops the query of every request to the CDN: the element asks
 * for the thumbnail variant and receives the original photo.
 */
export async function measureListPage(
  browser: Browser,
  origin: string,
  service: { apiUrl: string; cdnUrl: string; publishableKey: string },
  count: number,
  options: { originals: boolean },
): Promise<ListPageBytes> {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: PIXEL_RATIO });
  try {
    const tab = await context.newPage();
    if (options.originals) {
      await tab.route(`${service.cdnUrl}/**`, (route) => {
        const url = new URL(route.request().url());
        url.search = '';
        return route.continue({ url: url.href });
      });
    }
    const cdp = await context.newCDPSession(tab);
    const imageRequests = new Set<string>();
    const failed: string[] = [];
    const types = new Set<string>();
    let bytes = 0;
    let finished = 0;
    cdp.on('Network.responseReceived', (event) => {
      if (event.type !== 'Image') return;
      imageRequests.add(event.requestId);
      types.add(event.response.mimeType);
      if (event.response.status !== 200)
        failed.push(`${event.response.status} ${event.response.url}`);
    });
    cdp.on('Network.loadingFinished', (event) => {
      if (!imageRequests.has(event.requestId)) return;
      bytes += event.encodedDataLength;
      finished += 1;
    });
    await cdp.send('Network.enable');
    await tab.goto(origin);
    await tab.waitForFunction(() => customElements.get('file-list'));
    const drawnMs = await tab.evaluate(
      async ([endpoint, apiKey, expected, timeout]) => {
        const list = document.querySelector('file-list') as unknown as HTMLElement & {
          files: readonly unknown[];
          pageLoaded: Promise<void>;
          updateComplete: Promise<boolean>;
        };
        const started = performance.now();
        Object.assign(list, { endpoint, apiKey });
        await list.updateComplete;
        await list.pageLoaded;
        await list.updateComplete;
        if (list.files.length !== expected)
          throw new Error(`the list shows ${list.files.length} files, not ${expected}`);
        // Half a window a frame: every row passes through the view, as a reader scrolls.
        while (window.scrollY + window.innerHeight < document.documentElement.scrollHeight - 2) {
          window.scrollBy(0, window.innerHeight / 2);
          await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        // (No named helpers in here: tsx would wrap them in a `__name` the page lacks.)
        for (;;) {
          const images = [...(list.shadowRoot?.querySelectorAll('img') ?? [])];
          const drawn = images.filter((image) => image.complete && image.naturalWidth > 0);
          if (images.length === expected && drawn.length === expected) {
            await Promise.all(images.map((image) => image.decode()));
            break;
          }
          if (performance.now() - started > timeout)
            throw new Error(`thumbnails not drawn: ${drawn.length} of ${images.length}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await new Promise((resolve) => requestAnimationFrame(resolve));
        return performance.now() - started;
      },
      [service.apiUrl, service.publishableKey, count, DRAW_TIMEOUT_MS] as const,
    );
    // The last responses' loadingFinished may trail the images' load events a little.
    const deadline = Date.now() + 10_000;
    while (finished < imageRequests.size && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    if (failed.length) throw new Error(`image responses not 200: ${failed.join(', ')}`);
    if (imageRequests.size !== count || finished !== count)
      throw new Error(
        `expected ${count} image responses, saw ${imageRequests.size} (${finished} finished)`,
      );
    return { bytes, images: finished, types: [...types], drawnMs };
  } finally {
    await context.close();
  }
}
