/**
 * `npm run bench:element-ab`: two builds of `<file-uploader>` taking turns in one headless
 * Chromium against one service, so that a change worth a few per cent can be told from this
 * machine's drift (which moves a single run by a third): A is a git revision (`BASE`,
 * default HEAD), B is the working tree. Each pair loads A's page and B's page (in turns,
 * the order swapped every pair), warms each up with one upload and times the next: COUNT
 * files of SIZE bytes added at once (default 200 x 20 KiB), until `upload-complete`.
 * Prints both medians and each pair's B/A; a run of A against itself spread 0.96 to 1.06
 * (median 1.006) on 2026-11-24.
 *
 * Files of 16 MiB and more are written to disk and chosen through a file input, as a user's
 * would be (`SIZE=268435456 COUNT=1` for the 256 MiB file): a big Blob made in page memory
 * breaks Chromium's blob storage mid-upload (ERR_BLOB_REFERENCED_BLOB_BROKEN).
 *
 * `UPLINK_MBIT` throttles the page's uploads to that many Mbit/s (Chromium's network
 * emulation, DevTools protocol), as a user's link would: e.g. `UPLINK_MBIT=100` or `1000`.
 * `WARMUP=0` skips the warm-up upload (a slow link makes it cost as much as the timed one).
 *
 * `ATTRS_A` / `ATTRS_B` add attributes to one side's element (e.g. `ATTRS_B=no-resume`, to
 * measure what remembering uploads costs). Each bundle is built from its tree's
 * `src/script-tag.ts` by esbuild, minified, without the script-tag build's trimming of
 * Uppy: both sides alike.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { spawnService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { median } from './support.js';

const BASE = process.env.BASE ?? 'HEAD';
const PAIRS = Number(process.env.PAIRS ?? 6);
const COUNT = Number(process.env.COUNT ?? 200);
const SIZE = Number(process.env.SIZE ?? 20 * 1024);
const UPLINK_MBIT = Number(process.env.UPLINK_MBIT ?? 0);
const WARMUP = process.env.WARMUP !== '0';
/** From disk, as a user's file would be (see above). */
const FROM_DISK = SIZE >= 16 * 1024 * 1024;
type Side = 'A' | 'B';

async function bundleOf(root: string): Promise<string> {
  const built = await build({
    entryPoints: [join(root, 'src/script-tag.ts')],
    bundle: true,
    format: 'esm',
    write: false,
    minify: true,
  });
  return built.outputFiles[0]?.text ?? '';
}

async function servePage(bundle: string, attributes: string): Promise<Server> {
  const server = createServer((request, response) =>
    request.url === '/bundle.js'
      ? response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(bundle)
      : response
          .writeHead(200, { 'Content-Type': 'text/html' })
          .end(
            `<!doctype html><input type="file" id="source" multiple><file-uploader multiple ${attributes}></file-uploader><script type="module" src="/bundle.js"></script>`,
          ),
  );
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return server;
}

const originOf = (server: Server) =>
  `http://localhost:${(server.address() as { port: number }).port}`;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-element-ab-'));
  const base = join(dir, 'base');
  execFileSync('git', ['worktree', 'add', '--detach', base, BASE], { stdio: 'ignore' });
  await symlink(resolve('node_modules'), join(base, 'node_modules'));
  const servers: Record<Side, Server> = {
    A: await servePage(await bundleOf(base), process.env.ATTRS_A ?? ''),
    B: await servePage(await bundleOf('.'), process.env.ATTRS_B ?? ''),
  };
  const service = await spawnService({
    FILEHOST_DATA_DIR: join(dir, 'service'),
    FILEHOST_PLAN: 'paid',
    FILEHOST_ALLOWED_ORIGINS: `${originOf(servers.A)},${originOf(servers.B)}`,
    FILEHOST_RATE_LIMIT: '1000000',
    FILEHOST_LOG_LEVEL: 'error',
  });
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const results: Record<Side, number[]> = { A: [], B: [] };
  const diskFiles = FROM_DISK
    ? Array.from({ length: COUNT }, (_, i) => join(dir, `ab${i}.bin`))
    : [];
  for (const [i, path] of diskFiles.entries()) await writeFile(path, Buffer.alloc(SIZE, i % 256));
  try {
    const tab = await browser.newPage();
    if (UPLINK_MBIT > 0) {
      const devtools = await tab.context().newCDPSession(tab);
      await devtools.send('Network.enable');
      await devtools.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: (UPLINK_MBIT * 1_000_000) / 8,
      });
    }
    const upload = async () => {
      if (FROM_DISK) await tab.setInputFiles('#source', diskFiles);
      return tab.evaluate(
        async ([count, size, fromDisk]) => {
          const element = document.querySelector('file-uploader') as HTMLElement & {
            addFiles(files: File[]): void;
            removeFile(id: string): void;
            files: { id: string }[];
          };
          for (const file of element.files) element.removeFile(file.id);
          const files = fromDisk
            ? [...((document.querySelector('#source') as HTMLInputElement).files ?? [])]
            : Array.from(
                { length: count },
                (_, i) =>
                  new File([new Uint8Array(size).fill(i % 256)], `ab${i}-${Math.random()}.bin`),
              );
          const done = new Promise<{ failed: unknown[] }>((resolve) =>
            element.addEventListener(
              'upload-complete',
              (event) => resolve((event as CustomEvent).detail),
              { once: true },
            ),
          );
          const started = performance.now();
          element.addFiles(files);
          const { failed } = await done;
          if (failed.length > 0)
            throw new Error(`${failed.length} failed: ${JSON.stringify(failed)}`);
          return performance.now() - started;
        },
        [COUNT, SIZE, FROM_DISK] as const,
      );
    };
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const side of (pair % 2 ? ['B', 'A'] : ['A', 'B']) as Side[]) {
        await tab.goto(originOf(servers[side]));
        await tab.waitForFunction(() => customElements.get('file-uploader'));
        await tab.evaluate(
          ([endpoint, apiKey]) =>
            Object.assign(document.querySelector('file-uploader') as object, { endpoint, apiKey }),
          [service.apiUrl, service.publishableKey] as const,
        );
        if (WARMUP) await upload();
        results[side].push(await upload());
      }
    }
  } finally {
    await browser.close();
    service.process.kill('SIGTERM');
    await service.exited;
    for (const server of Object.values(servers)) server.close();
    execFileSync('git', ['worktree', 'remove', '--force', base], { stdio: 'ignore' });
    await rm(dir, { recursive: true, force: true });
  }
  const ratios = results.B.map((b, i) => b / (results.A[i] ?? b));
  const ms = (values: number[]) => values.map((value) => value.toFixed(0)).join(' ');
  const link = UPLINK_MBIT > 0 ? `, uplink ${UPLINK_MBIT} Mbit/s` : '';
  console.log(`${COUNT} x ${SIZE} bytes, ${PAIRS} pairs${link}; A = ${BASE}, B = the working tree`);
  console.log(`A: ${process.env.ATTRS_A ?? ''}; B: ${process.env.ATTRS_B ?? ''}`);
  console.log(`A ms: ${ms(results.A)} (median ${median(results.A).toFixed(0)})`);
  console.log(`B ms: ${ms(results.B)} (median ${median(results.B).toFixed(0)})`);
  console.log(
    `B/A per pair: ${ratios.map((r) => r.toFixed(2)).join(' ')}; median ${median(ratios).toFixed(3)}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
