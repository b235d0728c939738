/**
 * `npm run bench:browser`: uploads from a page in headless Chromium.
 * 1. A 256 MiB file through <file-uploader> (multi-step, parts in parallel) beside a plain
 *    XMLHttpRequest PUT of the same file from the same page to a plain node:http server that
 *    streams it to disk (the practical limit).
 * 2. 200 files of 20 KiB through <file-uploader> (sign, PUT, complete each) beside the same
 *    files as one-request uploads (POST /v1/upload), all started at once, from the same page;
 *    and the same three steps by bare fetch (no Uppy, no element, nothing drawn): the floor
 *    of the protocol itself, which tells the element's cost apart from the API's.
 * Medians over several runs; the service and the plain server each run in their own process.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { servePage } from '../helpers/page-server.js';
import { spawnService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { median, openUploaderPage, reportRows, startPeer } from './support.js';

// Five: single 256 MiB uploads range from 0.73 to 1.30 s on this machine (page cache, fsync).
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BIG = Number(process.env.BENCH_BIG_MIB ?? 256) * 1024 * 1024;
const SMALL_COUNT = 200;
const SMALL_SIZE = 20 * 1024;

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
  const results: Record<string, number[]> = {
    element: [],
    xhr: [],
    elementSmall: [],
    oneRequest: [],
    threeStepFetch: [],
  };
  try {
    const tab = await openUploaderPage(browser, server.origin, service);
    for (let run = 0; run < RUNS; run++) {
      // Each upload starts with nothing of the previous one left to write back to the disk.
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
      execFileSync('sync');
      results.element?.push(
        await tab.evaluate(async () => {
          const element = document.querySelector('file-uploader') as HTMLElement & {
            addFiles(files: File[]): void;
            removeFile(id: string): void;
            files: { id: string }[];
          };
          for (const file of element.files) element.removeFile(file.id);
          const file = (document.getElementById('source') as HTMLInputElement).files?.[0] as File;
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
          return performance.now() - started;
        }),
      );
      results.oneRequest?.push(
        await tab.evaluate(
          async ([endpoint, apiKey, count, size]) => {
            const files = Array.from(
              { length: count },
              (_, i) => new File([new Uint8Array(size).fill(i % 256)], `s${i}.bin`),
            );
            const started = performance.now();
            await Promise.all(
              files.map(async (file) => {
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
              }),
            );
            return performance.now() - started;
          },
          [service.apiUrl, service.publishableKey, SMALL_COUNT, SMALL_SIZE] as const,
        ),
      );
      results.threeStepFetch?.push(
        await tab.evaluate(
          async ([endpoint, apiKey, count, size]) => {
            const files = Array.from(
              { length: count },
              (_, i) => new File([new Uint8Array(size).fill(i % 256)], `f${i}.bin`),
            );
            const auth = { Authorization: `Bearer ${apiKey}` };
            const started = performance.now();
            await Promise.all(
              files.map(async (file) => {
                const signed = await fetch(`${endpoint}/v1/uploads/sign`, {
                  method: 'POST',
                  headers: { ...auth, 'Content-Type': 'application/json' },
                  body: JSON.stringify({ name: file.name, size: file.size }),
                });
                if (signed.status !== 201) throw new Error(await signed.text());
                const { id, parts } = (await signed.json()) as {
                  id: string;
                  parts: { url: string; headers: Record<string, string> }[];
                };
                const [part] = parts;
                if (!part) throw new Error('no part');
                const put = await fetch(part.url, {
                  method: 'PUT',
                  headers: part.headers,
                  body: file,
                });
                if (put.status !== 200) throw new Error(await put.text());
                const completed = await fetch(`${endpoint}/v1/uploads/${id}/complete`, {
                  method: 'POST',
                  headers: auth,
                });
                if (completed.status !== 200) throw new Error(await completed.text());
              }),
            );
            return performance.now() - started;
          },
          [service.apiUrl, service.publishableKey, SMALL_COUNT, SMALL_SIZE] as const,
        ),
      );
      results.elementSmall?.push(
        await tab.evaluate(
          async ([count, size]) => {
            const element = document.querySelector('file-uploader') as HTMLElement & {
              addFiles(files: File[]): void;
              removeFile(id: string): void;
              files: { id: string }[];
            };
            for (const file of element.files) element.removeFile(file.id);
            const files = Array.from(
              { length: count },
              (_, i) =>
                new File([new Uint8Array(size).fill(i % 256)], `e${i}-${Math.random()}.bin`),
            );
            const done = new Promise<{ successful: unknown[]; failed: unknown[] }>((resolve) =>
              element.addEventListener(
                'upload-complete',
                (event) => resolve((event as CustomEvent).detail),
                { once: true },
              ),
            );
            const started = performance.now();
            element.addFiles(files);
            const result = await done;
            if (result.failed.length > 0) throw new Error(`${result.failed.length} failed`);
            return performance.now() - started;
          },
          [SMALL_COUNT, SMALL_SIZE] as const,
        ),
      );
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
  const xhr = median(results.xhr ?? []);
  const element = median(results.element ?? []);
  const one = median(results.oneRequest ?? []);
  const small = median(results.elementSmall ?? []);
  const floor = median(results.threeStepFetch ?? []);
  console.log(
    `\nbrowser upload bench — ${new Date().toISOString()} — headless Chromium, median of ${RUNS}\n`,
  );
  console.log(
    `${mib} MiB file: plain XHR PUT to node:http ${(mib / (xhr / 1000)).toFixed(0)} MiB/s (${(xhr / 1000).toFixed(2)} s)`,
  );
  console.log(
    `${mib} MiB file: <file-uploader>          ${(mib / (element / 1000)).toFixed(0)} MiB/s (${(element / 1000).toFixed(2)} s) = ${(xhr / element).toFixed(2)}x the plain PUT`,
  );
  console.log(
    `${SMALL_COUNT} x ${SMALL_SIZE / 1024} KiB: one-request uploads, all at once ${(one / 1000).toFixed(2)} s`,
  );
  console.log(
    `${SMALL_COUNT} x ${SMALL_SIZE / 1024} KiB: sign, PUT, complete by bare fetch ${(floor / 1000).toFixed(2)} s = ${(floor / one).toFixed(2)}x the one-request time`,
  );
  console.log(
    `${SMALL_COUNT} x ${SMALL_SIZE / 1024} KiB: <file-uploader> (sign, PUT, complete) ${(small / 1000).toFixed(2)} s = ${(small / one).toFixed(2)}x the one-request time`,
  );
  await reportRows([
    {
      comparison: 'big file through the browser',
      measure: `${mib} MiB upload, MiB/s`,
      filehost: mib / (element / 1000),
      peer: { name: 'plain XHR PUT to node:http', value: mib / (xhr / 1000) },
      goal: { op: '>=', target: 0.9 },
      runs: RUNS,
    },
    {
      comparison: 'many small files through the browser',
      measure: `${SMALL_COUNT} x ${SMALL_SIZE / 1024} KiB, seconds`,
      filehost: small / 1000,
      peer: { name: 'one-request uploads', value: one / 1000 },
      goal: { op: '<=', target: 1.5 },
      runs: RUNS,
    },
    {
      comparison: 'many small files through the browser',
      measure: `${SMALL_COUNT} x ${SMALL_SIZE / 1024} KiB, seconds`,
      filehost: small / 1000,
      peer: { name: 'the same three steps by bare fetch', value: floor / 1000 },
      runs: RUNS,
    },
    {
      comparison: 'many small files through the browser',
      measure: `${SMALL_COUNT} x ${SMALL_SIZE / 1024} KiB by bare fetch: three steps vs one request, seconds`,
      filehost: floor / 1000,
      peer: { name: 'one-request uploads', value: one / 1000 },
      runs: RUNS,
    },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
