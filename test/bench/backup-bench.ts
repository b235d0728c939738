/**
 * `npx tsx test/bench/backup-bench.ts`: how long `admin backup` and `admin restore` take
 * for an embedded data dir of `BENCH_FILES` files (default 1,000, sizes spread from 1 KB to
 * `BENCH_MAX_KB`, default 200), beside `cp -a` of the same data dir followed by `sync -f`
 * (the plain copy an operator might reach for, made as durable; it neither takes a
 * consistent database copy nor hashes a byte) in the same run. The backup and the copy are taken while the service runs, as
 * `admin backup` is meant to be; the restore into a new directory. Each is run
 * `BENCH_RUNS` times (default 3), taking turns; medians and per-run ratios are printed,
 * with the machine's load.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupDataDir } from '../../src/server/admin/backup.js';
import { restoreDataDir } from '../../src/server/admin/restore.js';
import { patternBytes } from '../helpers/bytes.js';
import { startTestService } from '../helpers/service.js';
import { median } from './support.js';

const FILES = Number(process.env.BENCH_FILES ?? 1000);
const MAX_KB = Number(process.env.BENCH_MAX_KB ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

async function main(): Promise<void> {
  const service = await startTestService();
  const work = await mkdtemp(join(tmpdir(), 'filehost-backup-bench-'));
  try {
    let bytes = 0;
    let next = 0;
    const upload = async () => {
      while (next < FILES) {
        const index = next++;
        const body = patternBytes(1000 + ((index * 7919) % (MAX_KB * 1000)), index + 1);
        bytes += body.length;
        const answer = await service.api('/v1/upload', { method: 'POST', body });
        if (answer.status !== 201) throw new Error(`upload: ${answer.status}`);
        await answer.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 8 }, upload));
    console.log(
      `${FILES} files, ${(bytes / 1e6).toFixed(1)} MB; load before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );

    const times = { backup: [] as number[], restore: [] as number[], copy: [] as number[] };
    for (let run = 0; run < RUNS; run++) {
      const backup = join(work, `backup-${run}`);
      let began = performance.now();
      await backupDataDir({ dataDir: service.dataDir, target: backup });
      times.backup.push(performance.now() - began);
      began = performance.now();
      await restoreDataDir({ backup, dataDir: join(work, `restored-${run}`) });
      times.restore.push(performance.now() - began);
      began = performance.now();
      execFileSync('cp', ['-a', service.dataDir, join(work, `copy-${run}`)]);
      execFileSync('sync', ['-f', join(work, `copy-${run}`)]);
      times.copy.push(performance.now() - began);
      console.log(
        `run ${run + 1}: backup ${times.backup[run]?.toFixed(0)} ms, restore ${times.restore[run]?.toFixed(0)} ms, cp -a + sync ${times.copy[run]?.toFixed(0)} ms`,
      );
      for (const name of [`backup-${run}`, `restored-${run}`, `copy-${run}`]) {
        await rm(join(work, name), { recursive: true, force: true });
      }
    }
    const ratio = (values: number[]) =>
      median(values.map((value, index) => value / (times.copy[index] as number))).toFixed(2);
    console.log(
      `median: backup ${median(times.backup).toFixed(0)} ms (${ratio(times.backup)}x cp -a + sync), restore ${median(times.restore).toFixed(0)} ms (${ratio(times.restore)}x), cp -a + sync ${median(times.copy).toFixed(0)} ms; load after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await service.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
