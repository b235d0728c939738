/**
 * `npm run bench:browser`: uploads from a page in headless Chromium.
 * 1. A 256 MiB file through <file-uploader> (multi-step, parts in parallel) beside a plain
 *    XMLHttpRequest PUT of the same file from the same page to a plain node:http server that
 *    streams it to disk (the practical limit).
 * 2. 200 files of 20 KiB through <file-uploader> (sign, PUT, complete each) beside the same
 *    files as one-request uploads (POST /v1/upload), all started at once, from the same page;
 *    and the same steps by bare fetch (no Uppy, no element, nothing drawn): one sign, PUT and
 *    complete per file (the old floor), and batched (one batch sign, a PUT each, batch
 *    completes: the new floor). The floors tell the element's cost apart from the API's.
 * 3. The same for 2,000 files of 2 KiB, to show how it grows.
 * Requests and CORS preflights per file are counted from the page's DevTools protocol
 * (Network.requestWillBeSent, which reports preflights too) in the first run.
 * Medians over several runs; the service and the plain server each run in their own process.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { servePage } from '../helpers/page-server.js';
import { spawnService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { type BenchRow, median, openUploaderPage, reportRows, startPeer } from './support.js';

// Five: single 256 MiB uploads range from 0.73 to 1.30 s on this machine (page cache, fsync).
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BIG = Number(process.env.BENCH_BIG_MIB ?? 256) * 1024 * 1024;

async function startPlain(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const { port, child } = await startPeer('test/bench/plain-server.ts', [dir], {
    PLAIN_DELETE: '1',
  });
  return { url: `http://127.0.0.1:${port}/`, child };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-browser-bench-'));
  // The big file comes from disk, as a user's would: a file-backed File, not 256 MiB of page
  // memory (Chromium's blob storage broke such blobs mid-upload: ERR_BLOB_REFERENCED_BLOB_BROKEN).
  const bigPath = join(dir, 'big.bin');
  await writeFile(bigPath, Buffer.alloc(BIG, 7));
  const page = `<!doctype html><html><head><meta charset="utf-8"></head><body>
<input type="file" id="source"><file-uploader multiple></file-uploader><script type="module" src="/bundle.js"></script></body></html>`;
  const server = await servePage(page);
  const service = await spawnService({
    FILEHOST_DATA_DIR: join(dir, 'service'),
    FILEHOST_PLAN: 'paid',
    FILEHOST_ALLOWED_ORIGINS: server.origin,
    FILEHOST_RATE_LIMIT: '1000000',
    FILEHOST_LOG_LEVEL: 'error',
  });
  const plain = await startPlain(join(dir, 'plain'));
  await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'plain'), { recursive: true }));
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const results: Record<string, number[]> = { element: [], checked: [], xhr: [] };
  const counts: Record<string, { requests: number; preflights: number }> = {};
  try {
    const tab = await openUploaderPage(browser, server.origin, service);
    // Run -1 counts the requests (CDP's network events cost the page time, so the counted
    // run is not timed), and warms the service and the browser up.
    for (let run = -1; run < RUNS; run++) {
      // Each upload starts with nothing of the previous one left to write back to the disk.
      if (BIG > 0 && run >= 0) {
        execFileSync('sync');
        await tab.setInputFiles('#source', bigPath);
        results.xhr?.push(
          await tab.evaluate(
            ([url]) =>
              new Promise<number>((resolve, reject) => {
                const file = (document.getElementById('source') as HTMLInputElement)
                  .files?.[0] as File;
                const xhr = new XMLHttpRequest();
                const started = performance.now();
                xhr.open('PUT', url);
                xhr.onload = () =>
                  xhr.status === 201
                    ? resolve(performance.now() - started)
                    : reject(new Error(`${xhr.status}`));
                xhr.onerror = () => reject(new Error('network'));
                xhr.send(file);
              }),
            [plain.url] as const,
          ),
        );
        // The element with no digest on a big file's parts (checksum="small"), then with every
        // part hashed (checksum="all", what pages get by default since 2026-11-26).
        for (const [key, checksum] of [
          ['element', 'small'],
          ['checked', 'all'],
        ] as const) {
          execFileSync('sync');
          results[key]?.push(
            await tab.evaluate(async (checksum) => {
              const element = document.querySelector('file-uploader') as HTMLElement & {
                addFiles(files: File[]): void;
                removeFile(id: string): void;
                files: { id: string }[];
                updateComplete: Promise<boolean>;
              };
              for (const file of element.files) element.removeFile(file.id);
              element.setAttribute('checksum', checksum);
              await element.updateComplete;
              const file = (document.getElementById('source') as HTMLInputElement)
                .files?.[0] as File;
              const done = new Promise<void>((resolve, reject) => {
                element.addEventListener('upload-success', () => resolve(), { once: true });
                element.addEventListener(
                  'upload-error',
                  (event) => reject(new Error(JSON.stringify((event as CustomEvent).detail))),
                  { once: true },
                );
              });
              const started = performance.now();
              element.addFiles([file]);
              await done;
              const ms = performance.now() - started;
              element.setAttribute('checksum', 'small');
              return ms;
            }, checksum),
          );
        }
      }
      for (const shape of SMALL_SHAPES) {
        // Each run starts with another scenario: none always goes first (or after another).
        const turn = Math.max(0, run) % SCENARIOS.length;
        for (const scenario of [...SCENARIOS.slice(turn), ...SCENARIOS.slice(0, turn)]) {
          const counting = run === -1 ? await countRequests(tab) : null;
          const ms = await tab.evaluate(scenario.run, [
            service.apiUrl,
            service.publishableKey,
            shape.count,
            shape.size,
            scenario.checksum ?? 'small',
          ] as const);
          if (counting) {
            counts[`${shape.label} ${scenario.name}`] = await counting.stop(shape.count);
            continue;
          }
          results[`${shape.label} ${scenario.name}`] ??= [];
          results[`${shape.label} ${scenario.name}`]?.push(ms);
        }
      }
    }
  } finally {
    await browser.close();
    plain.child.kill();
    service.process.kill('SIGTERM');
    await service.exited;
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
  const mib = BIG / 1024 / 1024;
  const at = (key: string) => median(results[key] ?? []);
  console.log(
    `\nbrowser upload bench — ${new Date().toISOString()} — headless Chromium, median of ${RUNS}\n`,
  );
  const rows: BenchRow[] = [];
  if (BIG > 0) {
    const xhr = at('xhr');
    const element = at('element');
    console.log(
      `${mib} MiB file: plain XHR PUT to node:http ${(mib / (xhr / 1000)).toFixed(0)} MiB/s (${(xhr / 1000).toFixed(2)} s)`,
    );
    console.log(
      `${mib} MiB file: <file-uploader checksum="small"> ${(mib / (element / 1000)).toFixed(0)} MiB/s (${(element / 1000).toFixed(2)} s) = ${(xhr / element).toFixed(2)}x the plain PUT`,
    );
    rows.push({
      comparison: 'big file through the browser',
      measure: `${mib} MiB upload (checksum="small"), MiB/s`,
      filehost: mib / (element / 1000),
      peer: { name: 'plain XHR PUT to node:http', value: mib / (xhr / 1000) },
      goal: { op: '>=', target: 0.9 },
      runs: RUNS,
    });
    const checked = at('checked');
    console.log(
      `${mib} MiB file: <file-uploader checksum="all"> ${(mib / (checked / 1000)).toFixed(0)} MiB/s (${(checked / 1000).toFixed(2)} s) = ${(element / checked).toFixed(2)}x the element without (each run: ${(results.checked ?? []).map((ms, i) => ((results.element?.[i] ?? ms) / ms).toFixed(2)).join(' / ')})`,
    );
    rows.push({
      comparison: 'big file through the browser',
      measure: `${mib} MiB upload with every part hashed (checksum="all"), MiB/s`,
      filehost: mib / (checked / 1000),
      peer: { name: 'the element without part checksums', value: mib / (element / 1000) },
      goal: { op: '>=', target: 0.9 },
      runs: RUNS,
    });
  }
  for (const shape of SMALL_SHAPES) {
    const one = at(`${shape.label} one-request`);
    console.log(`\n${shape.label}:`);
    for (const scenario of SCENARIOS) {
      const ms = at(`${shape.label} ${scenario.name}`);
      const count = counts[`${shape.label} ${scenario.name}`];
      console.log(
        `  ${scenario.name.padEnd(34)} ${(ms / 1000).toFixed(2).padStart(6)} s = ${(ms / one).toFixed(2)}x one-request; per file ${count?.requests.toFixed(2)} requests, ${count?.preflights.toFixed(2)} preflights`,
      );
    }
    // Each run's own ratio too: medians of two columns can pair a fast run with a slow one.
    const perRun = (name: string) =>
      (results[`${shape.label} ${name}`] ?? [])
        .map((ms, i) => (ms / (results[`${shape.label} one-request`]?.[i] ?? ms)).toFixed(2))
        .join(' / ');
    const seconds = (name: string) =>
      (results[`${shape.label} ${name}`] ?? []).map((ms) => (ms / 1000).toFixed(2)).join(' / ');
    console.log(
      `  per run, element: ${perRun('element')}x; checksum off: ${perRun('element, checksum off')}x; batched fetch: ${perRun('batched fetch')}x; batch upload by fetch: ${perRun('batch upload by fetch')}x`,
    );
    console.log(
      `  per run, seconds: one-request ${seconds('one-request')}; element ${seconds('element')}`,
    );
    const element = at(`${shape.label} element`);
    rows.push(
      {
        comparison: 'many small files through the browser',
        measure: `${shape.label}, seconds`,
        filehost: element / 1000,
        peer: { name: 'one-request uploads', value: one / 1000 },
        // #46 point 3: 1.2x at 200 x 20 KiB, 1.5x at 2,000 x 2 KiB.
        goal: { op: '<=', target: shape.count === 200 ? 1.2 : 1.5 } as const,
        runs: RUNS,
      },
      {
        comparison: 'many small files through the browser',
        measure: `${shape.label}, seconds`,
        filehost: element / 1000,
        peer: {
          name: 'batched steps by bare fetch',
          value: at(`${shape.label} batched fetch`) / 1000,
        },
        runs: RUNS,
      },
      {
        comparison: 'many small files through the browser',
        measure: `${shape.label}, checksum="off", seconds`,
        filehost: at(`${shape.label} element, checksum off`) / 1000,
        peer: { name: 'one-request uploads', value: one / 1000 },
        runs: RUNS,
      },
      {
        comparison: 'many small files through the browser',
        measure: `${shape.label} by bare fetch: sign, PUT, complete each vs one request, seconds`,
        filehost: at(`${shape.label} three-step fetch`) / 1000,
        peer: { name: 'one-request uploads', value: one / 1000 },
        runs: RUNS,
      },
    );
  }
  await reportRows(rows);
}

const SMALL_SHAPES = [
  { label: '200 x 20 KiB', count: 200, size: 20 * 1024 },
  { label: '2,000 x 2 KiB', count: 2000, size: 2 * 1024 },
].filter((shape) => !process.env.BENCH_SMALL || process.env.BENCH_SMALL === String(shape.count));

type ScenarioArgs = readonly [
  endpoint: string,
  apiKey: string,
  count: number,
  size: number,
  /** The element's `checksum` attribute (element scenarios only). */
  checksum: string,
];

/** Each runs in the page and answers its milliseconds. */
const SCENARIOS: {
  name: string;
  checksum?: string;
  run: (args: ScenarioArgs) => Promise<number>;
}[] = [
  {
    name: 'one-request',
    run: async ([endpoint, apiKey, count, size]) => {
      const files = Array.from(
        { length: count },
        (_, i) => new File([new Uint8Array(size).fill(i % 256)], `s${i}.bin`),
      );
      // At most 100 in flight (Chromium refuses thousands of pending requests); the browser
      // sends 6 at a time to one host anyway.
      // (No named helpers in here: this function runs in the page as written.)
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 100 }, async () => {
          while (next < files.length) {
            const file = files[next++] as File;
            const response = await fetch(`${endpoint}/v1/upload`, {
              method: 'POST',
              headers: {
                Authorization: `Bearer ${apiKey}`,
                'Content-Type': 'application/octet-stream',
                'X-Filename': file.name,
              },
              body: file,
            });
            if (response.status !== 201) throw new Error(await response.text());
          }
        }),
      );
      return performance.now() - started;
    },
  },
  {
    name: 'three-step fetch',
    run: async ([endpoint, apiKey, count, size]) => {
      const files = Array.from(
        { length: count },
        (_, i) => new File([new Uint8Array(size).fill(i % 256)], `f${i}.bin`),
      );
      const auth = { Authorization: `Bearer ${apiKey}` };
      // (No named helpers in here: this function runs in the page as written.)
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 100 }, async () => {
          while (next < files.length) {
            const file = files[next++] as File;
            const signed = await fetch(`${endpoint}/v1/uploads/sign`, {
              method: 'POST',
              headers: { ...auth, 'Content-Type': 'application/json' },
              body: JSON.stringify({ name: file.name, size: file.size }),
            });
            if (signed.status !== 201) throw new Error(await signed.text());
            const { id, parts, uploadToken } = (await signed.json()) as {
              id: string;
              uploadToken: string;
              parts: { url: string; headers: Record<string, string> }[];
            };
            const [part] = parts;
            if (!part) throw new Error('no part');
            const put = await fetch(part.url, { method: 'PUT', headers: part.headers, body: file });
            if (put.status !== 200) throw new Error(await put.text());
            // A publishable key completes with the upload's token (decisions.md).
            const completed = await fetch(`${endpoint}/v1/uploads/${id}/complete`, {
              method: 'POST',
              headers: { ...auth, 'X-Upload-Token': uploadToken },
            });
            if (completed.status !== 200) throw new Error(await completed.text());
          }
        }),
      );
      return performance.now() - started;
    },
  },
  {
    name: 'batched fetch',
    run: async ([endpoint, apiKey, count, size]) => {
      const files = Array.from(
        { length: count },
        (_, i) => new File([new Uint8Array(size).fill(i % 256)], `b${i}.bin`),
      );
      const auth = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
      // At most 100 PUTs in flight across the batches, as in the other scenarios.
      const gate = { free: 100, waiting: [] as (() => void)[] };
      const started = performance.now();
      const batches: File[][] = [];
      for (let i = 0; i < files.length; i += 100) batches.push(files.slice(i, i + 100));
      // Two batches of 100 at a time: the service holds at most 200 pending uploads per
      // address for a publishable key (decisions.md, "Quotas and usage"), as the element does.
      let nextBatch = 0;
      await Promise.all(
        Array.from({ length: Math.min(2, batches.length) }, async () => {
          while (nextBatch < batches.length) {
            const batch = batches[nextBatch++] as File[];
            const signed = await fetch(`${endpoint}/v1/uploads/sign`, {
              method: 'POST',
              headers: auth,
              body: JSON.stringify({ files: batch.map((f) => ({ name: f.name, size: f.size })) }),
            });
            if (signed.status !== 201) throw new Error(await signed.text());
            const { uploads } = (await signed.json()) as {
              uploads: {
                id: string;
                uploadToken: string;
                parts: { url: string; headers: Record<string, string> }[];
              }[];
            };
            const done = await Promise.all(
              uploads.map(async (upload, index) => {
                const [part] = upload.parts;
                if (!part) throw new Error('no part');
                if (gate.free > 0) gate.free--;
                else await new Promise<void>((resolve) => gate.waiting.push(resolve));
                const put = await fetch(part.url, {
                  method: 'PUT',
                  headers: part.headers,
                  body: batch[index],
                }).finally(() => {
                  const waiter = gate.waiting.shift();
                  if (waiter) waiter();
                  else gate.free++;
                });
                if (put.status !== 200) throw new Error(await put.text());
                return {
                  id: upload.id,
                  uploadToken: upload.uploadToken,
                  parts: [{ partNumber: 1, etag: put.headers.get('ETag') }],
                };
              }),
            );
            const completed = await fetch(`${endpoint}/v1/uploads/complete`, {
              method: 'POST',
              headers: auth,
              body: JSON.stringify({ uploads: done }),
            });
            if (completed.status !== 200) throw new Error(await completed.text());
          }
        }),
      );
      return performance.now() - started;
    },
  },
  {
    name: 'batch upload by fetch',
    run: async ([endpoint, apiKey, count, size]) => {
      const files = Array.from(
        { length: count },
        (_, i) => new File([new Uint8Array(size).fill(i % 256)], `u${i}.bin`),
      );
      // The element's way (batch-upload.ts): the files spread over six requests at once, 8 to
      // 100 files each. (No named helpers in here: this function runs in the page as written.)
      const perRequest = Math.min(100, Math.max(8, Math.ceil(files.length / 6)));
      const requests: File[][] = [];
      for (let i = 0; i < files.length; i += perRequest) {
        requests.push(files.slice(i, i + perRequest));
      }
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: Math.min(6, requests.length) }, async () => {
          while (next < requests.length) {
            const batch = requests[next++] as File[];
            const form = new FormData();
            form.append(
              'files',
              JSON.stringify(batch.map((f) => ({ name: f.name, size: f.size }))),
            );
            for (const f of batch) form.append('file', f);
            const response = await fetch(`${endpoint}/v1/upload/batch`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${apiKey}` },
              body: form,
            });
            if (response.status !== 200) throw new Error(await response.text());
          }
        }),
      );
      return performance.now() - started;
    },
  },
  {
    name: 'element',
    run: async ([, , count, size, checksum]) => {
      const element = document.querySelector('file-uploader') as HTMLElement & {
        addFiles(files: File[]): void;
        removeFile(id: string): void;
        files: { id: string }[];
        updateComplete: Promise<boolean>;
      };
      for (const file of element.files) element.removeFile(file.id);
      element.setAttribute('checksum', checksum);
      await element.updateComplete;
      const files = Array.from(
        { length: count },
        (_, i) => new File([new Uint8Array(size).fill(i % 256)], `e${i}-${Math.random()}.bin`),
      );
      const done = new Promise<{ successful: unknown[]; failed: unknown[] }>((resolve) =>
        element.addEventListener(
          'upload-complete',
          (event) => resolve((event as CustomEvent).detail),
          {
            once: true,
          },
        ),
      );
      const started = performance.now();
      element.addFiles(files);
      const result = await done;
      if (result.failed.length > 0) throw new Error(`${result.failed.length} failed`);
      return performance.now() - started;
    },
  },
];

// The element as pages get it, and without part checksums: what the integrity of #19 costs.
const elementScenario = SCENARIOS.at(-1) as (typeof SCENARIOS)[number];
SCENARIOS.push({ ...elementScenario, name: 'element, checksum off', checksum: 'off' });

/** Counts the page's requests and CORS preflights until `stop`, per file. */
async function countRequests(tab: Page) {
  const cdp = await tab.context().newCDPSession(tab);
  await cdp.send('Network.enable');
  let requests = 0;
  let preflights = 0;
  cdp.on('Network.requestWillBeSent', (event) => {
    if (event.type === 'Preflight' || event.request.method === 'OPTIONS') preflights++;
    else requests++;
  });
  return {
    async stop(files: number) {
      await cdp.detach();
      return { requests: requests / files, preflights: preflights / files };
    },
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
