/**
 * `npm run bench:tus`: the same 256 MiB file from headless Chromium through
 * <file-uploader> to filehost, and through Uppy's tus uploader to @tus/server with its file
 * store (the peer protocol), each server in its own process on this machine. Median of runs.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { servePage } from '../helpers/page-server.js';
import { spawnService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { median, openUploaderPage, reportRows, startPeer } from './support.js';

// Five: single 256 MiB uploads range from 0.73 to 1.30 s on this machine (page cache, fsync).
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SIZE = Number(process.env.BENCH_BIG_MIB ?? 256) * 1024 * 1024;
async function startTus(directory: string): Promise<{ url: string; child: ChildProcess }> {
  await mkdir(directory, { recursive: true });
  const { port, child } = await startPeer('test/bench/tus-server.ts', [directory]);
  return { url: `http://127.0.0.1:${port}/files`, child };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-tus-bench-'));
  // The file comes from disk, as a user's would (a file-backed File, not page memory).
  const bigPath = join(dir, 'big.bin');
  await writeFile(bigPath, Buffer.alloc(SIZE, 7));
  const page = `<!doctype html><html><head><meta charset="utf-8"></head><body>
<input type="file" id="source"><file-uploader></file-uploader><script type="module" src="/bundle.js"></script></body></html>`;
  const filehostPage = await servePage(page);
  const tusPage = await servePage(
    '<!doctype html><input type="file" id="source"><script type="module" src="/bundle.js"></script>',
    'test/bench/tus-page.ts',
  );
  const service = await spawnService({
    FILEHOST_DATA_DIR: join(dir, 'service'),
    FILEHOST_PLAN: 'paid',
    FILEHOST_ALLOWED_ORIGINS: filehostPage.origin,
    FILEHOST_LOG_LEVEL: 'error',
  });
  const tus = await startTus(join(dir, 'tus'));
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const times = { filehost: [] as number[], tus: [] as number[] };
  try {
    const a = await openUploaderPage(browser, filehostPage.origin, service);
    const b = await browser.newPage();
    await b.goto(tusPage.origin);
    await b.waitForFunction(() => typeof window.uploadWithTus === 'function');
    for (let run = 0; run < RUNS; run++) {
      // Each upload starts with nothing of the other's left to write back to the disk.
      execFileSync('sync');
      await b.setInputFiles('#source', bigPath);
      times.tus.push(await b.evaluate((endpoint) => window.uploadWithTus(endpoint), tus.url));
      execFileSync('sync');
      await a.setInputFiles('#source', bigPath);
      times.filehost.push(
        await a.evaluate(async () => {
          const element = document.querySelector('file-uploader') as HTMLElement & {
            addFiles(files: File[]): void;
          };
          const done = new Promise<void>((resolve, reject) => {
            element.addEventListener('upload-success', () => resolve(), { once: true });
            element.addEventListener('upload-error', () => reject(new Error('upload failed')), {
              once: true,
            });
          });
          const started = performance.now();
          element.addFiles([
            (document.getElementById('source') as HTMLInputElement).files?.[0] as File,
          ]);
          await done;
          return performance.now() - started;
        }),
      );
    }
  } finally {
    await browser.close();
    tus.child.kill();
    service.process.kill('SIGTERM');
    await service.exited;
    await filehostPage.close();
    await tusPage.close();
    await rm(dir, { recursive: true, force: true });
  }
  const mib = SIZE / 1024 / 1024;
  console.log(
    `runs (s): tus ${times.tus.map((t) => (t / 1000).toFixed(2)).join(', ')}; filehost ${times.filehost.map((t) => (t / 1000).toFixed(2)).join(', ')}`,
  );
  const filehost = median(times.filehost);
  const tusTime = median(times.tus);
  console.log(
    `\ntus comparison — ${new Date().toISOString()} — headless Chromium, ${mib} MiB, median of ${RUNS}\n`,
  );
  console.log(
    `Uppy tus -> @tus/server (file store): ${(mib / (tusTime / 1000)).toFixed(0)} MiB/s (${(tusTime / 1000).toFixed(2)} s)`,
  );
  console.log(
    `<file-uploader> -> filehost:          ${(mib / (filehost / 1000)).toFixed(0)} MiB/s (${(filehost / 1000).toFixed(2)} s) = ${(tusTime / filehost).toFixed(2)}x tus`,
  );
  await reportRows([
    {
      comparison: 'a peer protocol (tus)',
      measure: `${mib} MiB upload, MiB/s`,
      filehost: mib / (filehost / 1000),
      peer: { name: 'Uppy tus to @tus/server', value: mib / (tusTime / 1000) },
      goal: { op: '>=', target: 1 },
      runs: RUNS,
    },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
