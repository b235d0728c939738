/**
 * Where the main thread's time goes while <file-uploader> uploads 200 files of 20 KiB
 * (#18): two warm-up runs, then one under Chromium's sampling profiler, printed as self time
 * per function. `npx tsx test/bench/small-files-profile.ts`. The bundle is not minified, so
 * the names are ours and Uppy's. (2026-11-24: of 3.2 s, 1.6 s "(program)", the browser's own
 * work, 0.5 s idle, 0.33 s XHR send, 0.09 s checksum reads, 0.11 s IndexedDB; redrawing every
 * 400 ms instead of 100 ms changed nothing. At 2,000 x 2 KiB, of 40.7 s: 18.3 s "(program)",
 * 3.9 s Uppy's patchFilesState and 1.5 s its #checkAndUpdateFileState (each change copies
 * Uppy's whole file map: O(n²)), 3.4 s XHR send, 1.5 s checksum reads, 1.9 s IndexedDB.)
 */
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { spawnService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { openUploaderPage } from './support.js';

const dir = await mkdtemp(join(tmpdir(), 'prof-'));
const bundle =
  (
    await build({
      entryPoints: ['src/script-tag.ts'],
      bundle: true,
      format: 'esm',
      write: false,
      minify: false,
      keepNames: false,
    })
  ).outputFiles[0]?.text ?? '';
const http = createServer((q, r) =>
  q.url === '/bundle.js'
    ? r.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle)
    : r
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><file-uploader multiple></file-uploader><script type="module" src="/bundle.js"></script>`,
        ),
);
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const server = {
  origin: `http://localhost:${(http.address() as { port: number }).port}`,
  close: async () => http.close(),
};
const service = await spawnService({
  FILEHOST_DATA_DIR: join(dir, 's'),
  FILEHOST_PLAN: 'paid',
  FILEHOST_ALLOWED_ORIGINS: server.origin,
  FILEHOST_RATE_LIMIT: '1000000',
  FILEHOST_LOG_LEVEL: 'error',
});
const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
const tab = await openUploaderPage(browser, server.origin, service);
await tab.addInitScript({ content: 'globalThis.__name = (t) => t;' });
/** BENCH_SMALL=2000 profiles 2,000 files of 2 KiB instead. */
const [COUNT, SIZE] = process.env.BENCH_SMALL === '2000' ? [2000, 2048] : [200, 20480];
const run = () =>
  tab.evaluate(
    async ([count, size]) => {
      const el = document.querySelector('file-uploader') as HTMLElement & {
        addFiles(f: File[]): void;
        removeFile(id: string): void;
        files: { id: string }[];
      };
      for (const f of el.files) el.removeFile(f.id);
      const files = Array.from(
        { length: count },
        (_, i) => new File([new Uint8Array(size).fill(i % 256)], `p${Math.random()}.bin`),
      );
      const done = new Promise((r) => el.addEventListener('upload-complete', r, { once: true }));
      const t = performance.now();
      el.addFiles(files);
      await done;
      return performance.now() - t;
    },
    [COUNT, SIZE] as const,
  );
console.log('warm', await run(), COUNT > 200 ? '' : await run());
const cdp = await tab.context().newCDPSession(tab);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
console.log('profiled run ms', await run());
const { profile } = (await cdp.send('Profiler.stop')) as {
  profile: {
    nodes: {
      id: number;
      callFrame: { functionName: string; url: string; lineNumber: number };
      hitCount?: number;
    }[];
    samples: number[];
    timeDeltas: number[];
  };
};
const self = new Map<string, number>();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
profile.samples.forEach((id, i) => {
  const n = byId.get(id)!;
  const dt = profile.timeDeltas[i] ?? 0;
  const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + dt);
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log('total sampled ms', (total / 1000).toFixed(0));
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30))
  console.log((v / 1000).toFixed(1).padStart(8), k);
await browser.close();
await server.close();
service.process.kill();
process.exit(0);
