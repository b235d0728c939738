/**
 * `npm run bench:startup`: time from the start of a page load to an interactive
 * <file-uploader> (defined, rendered, its browse button focusable), with the bundle served
 * by a plain static server over loopback (no cache), in headless Chromium. Median of runs.
 */
import { chromium } from 'playwright-core';
import { servePage } from '../helpers/page-server.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { median, reportRows } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);

async function main(): Promise<void> {
  const page = `<!doctype html><html><head><meta charset="utf-8">
<script type="module" src="/bundle.js"></script></head>
<body><file-uploader endpoint="http://127.0.0.1:9" api-key="pk_live_x"></file-uploader>
<script type="module">
  await customElements.whenDefined('file-uploader');
  const element = document.querySelector('file-uploader');
  await element.updateComplete;
  const button = element.shadowRoot.querySelector('.browse');
  window.__interactive = button ? performance.now() : -1;
</script></body></html>`;
  const server = await servePage(page);
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const times: number[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext();
      const tab = await context.newPage();
      await tab.goto(server.origin);
      const at = await tab.waitForFunction(
        () => (window as { __interactive?: number }).__interactive,
      );
      times.push((await at.jsonValue()) as number);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `\nstartup bench — ${new Date().toISOString()} — headless Chromium, ${RUNS} cold loads\n`,
  );
  console.log(
    `page load -> interactive <file-uploader>: median ${median(times).toFixed(0)} ms, best ${(sorted[0] as number).toFixed(0)} ms, worst ${(sorted.at(-1) as number).toFixed(0)} ms`,
  );
  await reportRows([
    {
      comparison: 'the elements themselves',
      measure: 'page load to interactive <file-uploader>, ms',
      filehost: median(times),
      runs: RUNS,
    },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
