/**
 * `npm run bench:variants-abuse`: image variants under abuse (#41), in one run:
 * 1. AVIF speed: a 2,048 px AVIF from a 24 MP JPEG (a photo-like one, and pure noise, the
 *    worst case for an encoder) at each `effort` in BENCH_EFFORTS (default 0-4), CPU
 *    seconds of this process with libvips on one thread (as the service runs it), and the
 *    file's size: what `AVIF_EFFORT` was chosen by (goal: under 2 s).
 * 2. Memory: the embedded service as a process of its own, 8 distinct 24 MP JPEGs, and 8
 *    requests for variants of them at once (2,048 px AVIF, then 4,096 px WebP): the
 *    service's resident memory before and at its peak (sampled every 10 ms; goal: under
 *    600 MB), the statuses, and the p99 of a plain 1 KiB file fetched one after another
 *    meanwhile against the same fetches idle.
 * Numbers move with the machine's load (other work shares its 2 cores): it is printed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { patternBytes } from '../helpers/bytes.js';
import { spawnService } from '../helpers/service.js';
import { percentile } from './support.js';

const EFFORTS = (process.env.BENCH_EFFORTS ?? '0,1,2,3,4').split(',').map(Number);
const MiB = 1024 * 1024;
const WIDTH = 6000;
const HEIGHT = 4000;

type Service = Awaited<ReturnType<typeof spawnService>>;

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** A photo-like 24 MP JPEG: a gradient under grain, tinted by `tint` (so each is its own file). */
async function photo(tint = 0): Promise<Buffer> {
  const gradient = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><defs><linearGradient id="g" x2="1" y2="1"><stop offset="0" stop-color="#1e3a8a"/><stop offset=".5" stop-color="#f59e0b"/><stop offset="1" stop-color="#065f46"/></linearGradient></defs><rect width="${WIDTH}" height="${HEIGHT}" fill="url(#g)"/></svg>`,
  );
  const grain = await sharp({
    create: {
      width: WIDTH,
      height: HEIGHT,
      channels: 3,
      background: { r: 0, g: 0, b: 0 },
      noise: { type: 'gaussian', mean: 128, sigma: 30 },
    },
  })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return sharp(gradient)
    .composite([{ input: grain, blend: 'overlay' }])
    .linear([1, 1, 1], [tint, -tint, tint / 2])
    .jpeg({ quality: 90 })
    .toBuffer();
}

function noise(): Promise<Buffer> {
  return sharp({
    create: {
      width: WIDTH,
      height: HEIGHT,
      channels: 3,
      background: { r: 255, g: 0, b: 0 },
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .jpeg({ quality: 95 })
    .toBuffer();
}

function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

async function avifSpeed(): Promise<void> {
  sharp.cache(false);
  sharp.concurrency(1);
  const sources = { photo: await photo(), noise: await noise() };
  console.log(`1. AVIF speed, 24 MP JPEG -> 2,048 px AVIF, CPU s (load ${load()}):`);
  for (const [name, source] of Object.entries(sources)) {
    for (const quality of [75, 100]) {
      const cells: string[] = [];
      for (const effort of EFFORTS) {
        const before = cpuSeconds();
        const output = await sharp(source)
          .resize({ width: 2048, height: 2048, fit: 'inside' })
          .avif({ quality, effort })
          .toBuffer();
        cells.push(
          `effort ${effort}: ${(cpuSeconds() - before).toFixed(2)} s, ${(output.length / 1024).toFixed(0)} KiB`,
        );
      }
      console.log(
        `  ${name} (${(source.length / MiB).toFixed(1)} MiB) q=${quality}: ${cells.join('; ')}`,
      );
    }
  }
}

async function upload(service: Service, bytes: Uint8Array, type: string, name: string) {
  const response = await fetch(`${service.apiUrl}/v1/upload`, {
    method: 'POST',
    body: new Uint8Array(bytes),
    headers: {
      Authorization: `Bearer ${service.secretKey}`,
      'Content-Type': type,
      'X-Filename': name,
    },
  });
  if (response.status !== 201)
    throw new Error(`upload: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { url: string }).url;
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

async function latencies(url: string, until: () => boolean): Promise<number[]> {
  const times: number[] = [];
  while (!until()) {
    const started = performance.now();
    const response = await fetch(url);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`plain file: ${response.status}`);
    times.push(performance.now() - started);
  }
  return times;
}

async function memory(dir: string): Promise<void> {
  const service = await spawnService({
    FILEHOST_DATA_DIR: join(dir, 'service'),
    FILEHOST_LOG_LEVEL: 'error',
  });
  try {
    const pid = service.process.pid as number;
    const urls: string[] = [];
    for (let index = 0; index < 8; index++) {
      urls.push(await upload(service, await photo(index * 3), 'image/jpeg', `p${index}.jpg`));
    }
    const plain = await upload(service, patternBytes(1024, 6), 'application/octet-stream', 'a.bin');
    await latencies(plain, () => true);
    const idleEnd = performance.now() + 3000;
    const idle = await latencies(plain, () => performance.now() > idleEnd);
    console.log(
      `2. memory: 8 distinct ${WIDTH} x ${HEIGHT} JPEGs stored; plain 1 KiB idle p50 ${percentile(idle, 50).toFixed(2)} ms, p99 ${percentile(idle, 99).toFixed(2)} ms (${idle.length})`,
    );
    for (const query of ['w=2048&format=avif', 'w=4096&format=webp']) {
      const before = await rssOf(pid);
      let peak = before;
      const sampler = setInterval(() => {
        rssOf(pid).then(
          (rss) => {
            peak = Math.max(peak, rss);
          },
          () => {},
        );
      }, 10);
      const started = performance.now();
      let done = false;
      const burst = Promise.all(
        urls.map(async (url) => {
          const response = await fetch(`${url}?${query}`);
          await response.arrayBuffer();
          return { status: response.status, at: (performance.now() - started) / 1000 };
        }),
      ).finally(() => {
        done = true;
      });
      const busy = await latencies(plain, () => done);
      const answers = await burst;
      clearInterval(sampler);
      peak = Math.max(peak, await rssOf(pid));
      console.log(
        `  8 x ${query} at once (load ${load()}): RSS ${(before / MiB).toFixed(0)} -> peak ${(peak / MiB).toFixed(0)} MiB; answers ${answers.map((a) => `${a.status}@${a.at.toFixed(1)}s`).join(' ')}; plain 1 KiB p50 ${percentile(busy, 50).toFixed(2)} ms, p99 ${percentile(busy, 99).toFixed(2)} ms (${busy.length}), p99 ratio to idle ${(percentile(busy, 99) / percentile(idle, 99)).toFixed(2)}`,
      );
    }
  } finally {
    service.process.kill('SIGTERM');
    await service.exited;
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-variants-abuse-'));
  try {
    if (process.env.BENCH_SKIP_EFFORTS !== '1') await avifSpeed();
    await memory(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
