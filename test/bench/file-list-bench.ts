/**
 * `npm run bench:list`: `<file-list>` with 5,000 loaded files in headless Chromium against
 * the reference service. Prints the time to load and render every page, and the frame
 * times while scrolling from top to bottom (the answer to "does it need virtual scrolling").
 * BENCH_TRACE=1 writes a Chromium trace of each run's scrolling to /tmp/list-trace-<run>.json.
 */

import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import type { FileRow } from '../../src/server/db/metadata-store.js';
import { newId } from '../../src/server/ground/secrets.js';
import { createKey, createProject } from '../../src/server/start/admin.js';
import { readyFileRow } from '../helpers/file-rows.js';
import { servePage } from '../helpers/page-server.js';
import { startTestService } from '../helpers/service.js';
import { insertFilesBulk } from '../helpers/sqlite-rows.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { median, percentile, reportRows } from './support.js';

const COUNT = Number(process.env.BENCH_FILES ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Pixels scrolled per frame: 120 is a brisk mouse wheel. */
const STEP = Number(process.env.BENCH_STEP ?? 120);

/** Scrolls the page from top to bottom, STEP px a frame, and returns each frame's time. */
async function scrollFrames(tab: Page): Promise<number[]> {
  return tab.evaluate(async (step) => {
    const times: number[] = [];
    let last = performance.now();
    while (window.scrollY + window.innerHeight < document.documentElement.scrollHeight - 2) {
      window.scrollBy(0, step);
      await new Promise((resolve) => requestAnimationFrame(resolve));
      const now = performance.now();
      times.push(now - last);
      last = now;
    }
    return times;
  }, STEP);
}

/**
 * The contender: the same rows as plain, static HTML (no shadow DOM, no Lit, no script),
 * laid out like the element's. What this browser on this machine does with any page of
 * that many rows is the floor for the element.
 */
function staticPage(rows: FileRow[]): string {
  const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const items = rows
    .map(
      (row) => `<li class="item"><span class="thumbnail"></span><span class="info">
<span class="name"><a href="#">${escapeHtml(row.name)}</a></span>
<span class="meta">${(row.size / 1000).toFixed(1)} kB · ${row.mime} · <time>3 days ago</time></span></span>
<button type="button">Copy link</button></li>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><style>
ul{list-style:none;margin:0;padding:0;border:1px solid #e2e8f0;border-radius:.75rem}
.item{display:grid;grid-template-columns:2.5rem minmax(0,1fr) auto;align-items:center;gap:.75rem;
min-height:3.75rem;padding:.5rem .85rem;border-bottom:1px solid #e2e8f0;cursor:pointer}
.item:hover{background:#f8fafc}.thumbnail{width:2.5rem;height:2.5rem;border-radius:.375rem;background:#f8fafc}
.info{display:grid;gap:.15rem;min-width:0}.name{font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.name a{color:#2563eb;text-decoration:none}.meta{font-size:.825rem;color:#475569}
</style></head><body style="margin:0;font-family:system-ui"><main style="max-width:720px;margin:0 auto;padding:16px">
<ul>${items}</ul></main></body></html>`;
}

async function main(): Promise<void> {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin:0;font-family:system-ui"><main style="max-width:720px;margin:0 auto;padding:16px">
<file-list page-size="100"></file-list></main><script type="module" src="/bundle.js"></script></body></html>`;
  const server = await servePage(page);
  const running = await startTestService({ FILEHOST_ALLOWED_ORIGINS: server.origin });
  const service = running.service;
  const db = service.context.db;
  const project = await createProject(db, {
    name: 'bench',
    plan: 'free',
    allowedOrigins: [server.origin],
  });
  const { key } = await createKey(db, project.id, 'publishable');
  const base = Date.now() - 3 * 24 * 3600 * 1000;
  const rows: FileRow[] = Array.from({ length: COUNT }, (_, index) =>
    readyFileRow({
      id: newId(),
      projectId: project.id,
      name: `${['holiday', 'invoice', 'screenshot', 'report', 'notes'][index % 5]}-${index}.${['jpg', 'pdf', 'png', 'docx', 'txt'][index % 5]}`,
      mime: [
        'application/octet-stream',
        'application/pdf',
        'text/plain',
        'application/zip',
        'text/plain',
      ][index % 5] as string,
      size: 1000 + index * 37,
      createdAt: base + index * 1000,
    }),
  );
  insertFilesBulk(join(running.dataDir, 'filehost.db'), rows);

  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const results: { load: number; frames: number[]; staticFrames: number[] }[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await tab.goto(`${server.origin}/?step=${STEP}`);
      await tab.waitForFunction(() => customElements.get('file-list'));
      const load = await tab.evaluate(
        async ([endpoint, apiKey, count]) => {
          const list = document.querySelector('file-list') as unknown as HTMLElement & {
            files: readonly unknown[];
            loadMore(): Promise<void>;
            pageLoaded: Promise<void>;
            updateComplete: Promise<boolean>;
          };
          const started = performance.now();
          Object.assign(list, { endpoint, apiKey });
          await list.updateComplete;
          await list.pageLoaded;
          while (list.files.length < count) {
            await list.loadMore();
          }
          await list.updateComplete;
          await new Promise((resolve) =>
            requestAnimationFrame(() => requestAnimationFrame(resolve)),
          );
          return performance.now() - started;
        },
        [service.apiUrl, key, COUNT] as const,
      );
      if (process.env.BENCH_TRACE)
        await browser.startTracing(tab, {
          path: `/tmp/list-trace-${run}.json`,
          categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'cc', 'viz'],
        });
      const frames = await scrollFrames(tab);
      if (process.env.BENCH_TRACE) await browser.stopTracing();
      await tab.close();
      const plain = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await plain.setContent(staticPage(rows));
      const staticFrames = await scrollFrames(plain);
      await plain.close();
      results.push({ load, frames, staticFrames });
    }
  } finally {
    await browser.close();
    await running.close();
    await server.close();
  }

  const all = results.flatMap((r) => r.frames);
  for (const r of results)
    console.log(
      r.frames
        .map((f, i) => [i, Math.round(f)])
        .filter(([, f]) => (f as number) > 30)
        .map((p) => p.join(':'))
        .join(' '),
      'of',
      r.frames.length,
    );
  const longest = Math.max(...all);
  console.log(
    `\n<file-list> bench — ${new Date().toISOString()} — ${COUNT} files, ${RUNS} runs, headless Chromium\n`,
  );
  console.log(
    `load and render all ${COUNT} files (${COUNT / 100} pages of 100): median ${median(results.map((r) => r.load)).toFixed(0)} ms`,
  );
  console.log(`scrolling top to bottom, ${STEP} px per frame: ${all.length} frames`);
  console.log(
    `  frame time p50 ${median(all).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms, longest ${longest.toFixed(1)} ms`,
  );
  const plain = results.flatMap((r) => r.staticFrames);
  const plainLongest = Math.max(...plain);
  console.log(
    `the same rows as static HTML: ${plain.length} frames, p50 ${median(plain).toFixed(1)} ms, p99 ${percentile(plain, 99).toFixed(1)} ms, longest ${plainLongest.toFixed(1)} ms`,
  );
  const comparison = 'the elements themselves';
  await reportRows([
    {
      comparison,
      measure: `<file-list>: load and render ${COUNT} files, ms`,
      filehost: median(results.map((r) => r.load)),
      runs: RUNS,
    },
    {
      comparison,
      measure: '<file-list> scrolling: frame p50, ms',
      filehost: median(all),
      runs: RUNS,
    },
    {
      comparison,
      measure: '<file-list> scrolling: frame p99, ms',
      filehost: percentile(all, 99),
      peer: { name: 'the same rows as static HTML', value: percentile(plain, 99) },
      runs: RUNS,
    },
    {
      comparison,
      measure: '<file-list> scrolling: longest frame, ms',
      filehost: longest,
      peer: { name: 'the same rows as static HTML', value: plainLongest },
      goal: { op: '<=', target: 50, absolute: true },
      runs: RUNS,
    },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
