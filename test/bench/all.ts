/**
 * `npm run bench`: every benchmark in one go, one after another (they would disturb each
 * other's numbers if run together), printing each one's table and writing them all, with the
 * date and the machine, to `.bench/results.json`. Not part of `npm test` or CI.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem, type } from 'node:os';

const BENCHES = [
  ['server', 'test/bench/server-bench.ts'],
  ['browser uploads', 'test/bench/browser-upload-bench.ts'],
  ['tus', 'test/bench/tus-bench.ts'],
  ['serving', 'test/bench/serving-bench.ts'],
  ['load', 'test/bench/load-bench.ts'],
  ['startup', 'test/bench/startup-bench.ts'],
  ['file-list', 'test/bench/file-list-bench.ts'],
] as const;

async function main(): Promise<void> {
  const results: {
    name: string;
    script: string;
    seconds: number;
    ok: boolean;
    output: string[];
  }[] = [];
  for (const [name, script] of BENCHES) {
    console.log(`\n=== ${name} (${script})`);
    const started = Date.now();
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 * 1024 * 1024,
    });
    process.stdout.write(run.stdout);
    results.push({
      name,
      script,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      ok: run.status === 0,
      output: run.stdout.split('\n').filter((line) => line.trim() !== ''),
    });
  }
  const report = {
    date: new Date().toISOString(),
    machine: {
      os: type(),
      cpus: cpus().length,
      cpu: cpus()[0]?.model,
      memoryGiB: Math.round(totalmem() / 1024 ** 3),
      node: process.version,
    },
    results,
  };
  await mkdir('.bench', { recursive: true });
  await writeFile('.bench/results.json', `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `\nwritten to .bench/results.json (${results.filter((r) => r.ok).length} of ${results.length} benches ran)`,
  );
  if (results.some((r) => !r.ok)) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
