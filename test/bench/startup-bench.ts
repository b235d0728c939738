/**
 * `npm run bench:startup`: time from the start of a page load to an interactive
 * <file-uploader> (defined, rendered, its browse button focusable), served by a plain
 * static server over loopback (no cache), in headless Chromium, median of runs. Two
 * contenders take turns in the same run: the script-tag bundle as built (`dist/`, run
 * `npm run build` first: filehost.js, with the upload engine fetched later), and every
 * module in one file (what the page had to load before the engine was split off).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { servePage } from '../helpers/page-server.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { median, reportRows, scriptTagFiles } from './support.js';

/** dist/'s script-tag files at /bundle.js (filehost.js) and beside it, and the page at /. */
async function serveDist(html: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const files = new Map<string, Buffer>();
  for (const name of await scriptTagFiles()) {
    files.set(name === 'filehost.js' ? '/bundle.js' : `/${name}`, await readFile(`dist/${name}`));
  }
  // The engine imports shared code from `./filehost.js`: serve it there too.
  files.set('/filehost.js', files.get('/bundle.js') as Buffer);
  const server = createServer((request, response) => {
    const script = files.get((request.url ?? '/').split('?')[0] ?? '/');
    if (script) response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    else response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    origin: `http://localhost:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

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
  const servers = {
    'split (dist/)': await serveDist(page),
    'one file': await servePage(page),
  };
  const times: Record<string, number[]> = { 'split (dist/)': [], 'one file': [] };
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    for (let run = 0; run < RUNS; run++) {
      for (const [name, server] of Object.entries(servers)) {
        const context = await browser.newContext();
        const tab = await context.newPage();
        await tab.goto(server.origin);
        const at = await tab.waitForFunction(
          () => (window as { __interactive?: number }).__interactive,
        );
        times[name]?.push((await at.jsonValue()) as number);
        await context.close();
      }
    }
  } finally {
    await browser.close();
    for (const server of Object.values(servers)) await server.close();
  }
  console.log(
    `\nstartup bench — ${new Date().toISOString()} — headless Chromium, ${RUNS} cold loads each, taking turns\n`,
  );
  for (const [name, list] of Object.entries(times)) {
    const sorted = [...list].sort((a, b) => a - b);
    console.log(
      `${name.padEnd(14)} page load -> interactive <file-uploader>: median ${median(list).toFixed(0)} ms, best ${(sorted[0] as number).toFixed(0)} ms, worst ${(sorted.at(-1) as number).toFixed(0)} ms`,
    );
  }
  await reportRows([
    {
      comparison: 'the elements themselves',
      measure: 'page load to interactive <file-uploader>, ms',
      filehost: median(times['split (dist/)'] ?? []),
      peer: { name: 'everything in one file', value: median(times['one file'] ?? []) },
      goal: { op: '<=', target: 1 },
      runs: RUNS,
    },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
