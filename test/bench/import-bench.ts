/**
 * Importing a 256 MiB file from nginx on loopback (`POST /v1/uploads/import`, until the
 * file is ready) against `curl` downloading the same file to disk, in the same run, runs
 * alternating; the ratio is curl's time over the import's (goal >= 0.8x). Embedded
 * deployment (SQLite + local disk); `npm run bench:import`.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileRecord, ImportResponse } from '../../src/api/types.js';
import { configFromEnv } from '../../src/server/start/config-from-env.js';
import { startService } from '../../src/server/start/service.js';
import { startStaticNginx } from '../helpers/nginx.js';
import { median } from './support.js';

const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
const RUNS = Number(process.env.IMPORT_BENCH_RUNS ?? 3);

async function curlOnce(url: string, to: string): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('curl', ['-s', '-f', '-o', to, url], { stdio: 'ignore' });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`curl ${code}`))));
  });
  return performance.now() - started;
}

/** curl, then the file flushed to disk: what the import must do before a file is ready. */
async function curlDurableOnce(url: string, to: string): Promise<number> {
  const started = performance.now();
  await curlOnce(url, to);
  const handle = await open(to, 'r+');
  await handle.sync();
  await handle.close();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'filehost-import-bench-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'filehost-import-bench-data-'));
  const bytes = Buffer.alloc(SIZE);
  for (let offset = 0; offset < SIZE; offset += 4)
    bytes.writeUInt32LE((offset * 2654435761) >>> 0, offset);
  await writeFile(join(root, 'big.bin'), bytes, { mode: 0o644 });
  // nginx's workers run as an unprivileged user: they must be able to read it.
  await chmod(root, 0o755);
  const nginx = await startStaticNginx(root);
  if ('skip' in nginx) throw new Error(nginx.skip);
  const service = await startService({
    ...configFromEnv({
      FILEHOST_DATA_DIR: dataDir,
      FILEHOST_PLAN: 'paid',
      FILEHOST_IMPORT_ALLOW_PRIVATE: 'true',
      FILEHOST_LOG_LEVEL: 'warn',
    }),
    apiPort: 0,
    cdnPort: 0,
  });
  const auth = { Authorization: `Bearer ${service.defaultProject.secretKey}` };
  const importOnce = async (): Promise<number> => {
    const started = performance.now();
    const answer = await fetch(`${service.apiUrl}/v1/uploads/import`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `${nginx.url}/big.bin` }),
    });
    const { file } = (await answer.json()) as ImportResponse;
    // Finished when the process has no import under way; then the record must be ready.
    while (service.context.imports.size > 0) await new Promise((r) => setTimeout(r, 5));
    const elapsed = performance.now() - started;
    const record = (await (
      await fetch(`${service.apiUrl}/v1/files/${file.id}`, { headers: auth })
    ).json()) as FileRecord;
    if (record.status !== 'ready' || record.size !== SIZE) {
      throw new Error(`import did not finish whole: ${JSON.stringify(record)}`);
    }
    await fetch(`${service.apiUrl}/v1/files/${file.id}`, { method: 'DELETE', headers: auth });
    return elapsed;
  };
  const curlTimes: number[] = [];
  const durableTimes: number[] = [];
  const importTimes: number[] = [];
  try {
    // One of each first, not counted: page cache, JIT.
    await curlOnce(`${nginx.url}/big.bin`, join(root, 'warm.bin'));
    await importOnce();
    for (let run = 0; run < RUNS; run++) {
      curlTimes.push(await curlOnce(`${nginx.url}/big.bin`, join(root, `curl-${run}.bin`)));
      await rm(join(root, `curl-${run}.bin`));
      durableTimes.push(
        await curlDurableOnce(`${nginx.url}/big.bin`, join(root, `sync-${run}.bin`)),
      );
      await rm(join(root, `sync-${run}.bin`));
      importTimes.push(await importOnce());
    }
  } finally {
    await service.close();
    await nginx.stop();
    await rm(root, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
  const curl = median(curlTimes);
  const durable = median(durableTimes);
  const imported = median(importTimes);
  const rate = (ms: number) => `${(SIZE / MiB / (ms / 1000)).toFixed(0)} MiB/s`;
  console.log(`256 MiB from nginx on loopback, ${RUNS} runs each, medians:`);
  console.log(
    `  curl to disk: ${curl.toFixed(0)} ms (${rate(curl)}) [${curlTimes.map((v) => v.toFixed(0)).join(', ')}]`,
  );
  console.log(
    `  import:       ${imported.toFixed(0)} ms (${rate(imported)}) [${importTimes.map((v) => v.toFixed(0)).join(', ')}]`,
  );
  console.log(
    `  curl + fsync: ${durable.toFixed(0)} ms (${rate(durable)}) [${durableTimes.map((v) => v.toFixed(0)).join(', ')}]`,
  );
  console.log(`  ratio (curl time / import time): ${(curl / imported).toFixed(2)}x (goal >= 0.8x)`);
  console.log(`  ratio (curl + fsync time / import time): ${(durable / imported).toFixed(2)}x`);
}

await main();
