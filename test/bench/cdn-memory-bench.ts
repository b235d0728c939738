/**
 * `npm run bench:cdn-memory`: the CDN's memory under a load of many distinct small files.
 * Three services, each a process of its own with 100,000 files of 1 KiB (rows written in
 * bulk, bytes written where the local store keeps them): the default cache (64 MiB), the
 * cache given room for everything (1 GiB, the contender that shows what the bound saves),
 * and no cache. Every file is read once over HTTP (64 at a time); the resident set size of
 * each service is sampled throughout. Prints peak and final RSS and requests per second.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../../src/server/ground/secrets.js';
import { patternBytes } from '../helpers/bytes.js';
import { readyFileRow } from '../helpers/file-rows.js';
import { type ChildService, spawnService } from '../helpers/service.js';
import { insertFilesBulk } from '../helpers/sqlite-rows.js';

const FILES = Number(process.env.BENCH_FILES ?? 100_000);
const PARALLEL = 64;
const MiB = 1024 * 1024;

async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** 100,000 ready files of 1 KiB in a service's data dir, as its own uploads would leave them. */
async function seed(dataDir: string): Promise<string[]> {
  const { projectId } = JSON.parse(
    await readFile(join(dataDir, 'default-project.json'), 'utf8'),
  ) as { projectId: string };
  const bytes = patternBytes(1024, 3);
  const ids = Array.from({ length: FILES }, () => newId());
  const blobs = join(dataDir, 'storage', 'blobs');
  for (let at = 0; at < ids.length; at += 1000) {
    await Promise.all(
      ids.slice(at, at + 1000).map(async (id) => {
        await mkdir(join(blobs, id.slice(0, 2)), { recursive: true });
        await writeFile(join(blobs, id.slice(0, 2), id), bytes);
      }),
    );
  }
  const now = Date.now();
  insertFilesBulk(
    join(dataDir, 'filehost.db'),
    ids.map((id, index) =>
      readyFileRow({
        id,
        projectId,
        name: `file-${index}.bin`,
        size: bytes.length,
        createdAt: now + index,
      }),
    ),
  );
  return ids;
}

async function readAll(service: ChildService, ids: string[]) {
  const pid = service.process.pid as number;
  let peak = await rssBytes(pid);
  const before = peak;
  const sampler = setInterval(() => {
    rssBytes(pid)
      .then((rss) => {
        peak = Math.max(peak, rss);
      })
      .catch(() => undefined);
  }, 250);
  const started = Date.now();
  let next = 0;
  const cdn = service.cdnUrl.replace('localhost', '127.0.0.1');
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < ids.length) {
        const id = ids[next++] as string;
        const response = await fetch(`${cdn}/${id}`);
        const body = await response.arrayBuffer();
        if (response.status !== 200 || body.byteLength !== 1024) {
          throw new Error(`${id}: ${response.status}, ${body.byteLength} bytes`);
        }
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  const after = await rssBytes(pid);
  return { before, peak: Math.max(peak, after), after, rps: ids.length / seconds };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-cdn-memory-'));
  const contenders = [
    { name: 'cache 64 MiB (default)', cacheMb: '64' },
    { name: 'cache 1 GiB (room for all)', cacheMb: '1024' },
    { name: 'no cache', cacheMb: '0' },
  ];
  console.log(
    `\nCDN memory bench — ${new Date().toISOString()} — ${FILES.toLocaleString('en')} distinct 1 KiB files, each read once, ${PARALLEL} at a time\n`,
  );
  console.log('service                       RSS before   RSS peak   RSS after   requests/s');
  try {
    for (const contender of contenders) {
      const dataDir = join(dir, contender.cacheMb);
      const service = await spawnService({
        FILEHOST_DATA_DIR: dataDir,
        FILEHOST_LOG_LEVEL: 'error',
        FILEHOST_CDN_CACHE_MB: contender.cacheMb,
      });
      try {
        const ids = await seed(dataDir);
        const result = await readAll(service, ids);
        const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`.padStart(10);
        console.log(
          `${contender.name.padEnd(29)} ${mib(result.before)} ${mib(result.peak)} ${mib(result.after)} ${result.rps.toFixed(0).padStart(12)}`,
        );
      } finally {
        service.process.kill('SIGTERM');
        await service.exited;
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
