/**
 * `npm run bench`: every benchmark in one go, one after another (they would disturb each
 * other's numbers if run together). Each prints its own details and reports its medians as
 * rows; at the end one table of all rows is printed (with the ratio to each contender and
 * whether the goal is met) and written, with the date and the machine, to
 * `.bench/results.json` and, as Markdown for the README, `.bench/results.md`.
 * Not part of `npm test` or CI.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { type BenchResult, markdownTable } from './support.js';

const BENCHES = [
  ['browser uploads', 'test/bench/browser-upload-bench.ts'],
  ['tus', 'test/bench/tus-bench.ts'],
  ['serving', 'test/bench/serving-bench.ts'],
  ['load', 'test/bench/load-bench.ts'],
  ['startup', 'test/bench/startup-bench.ts'],
  ['images', 'test/bench/image-shrink-bench.ts'],
  ['image variants', 'test/bench/variants-bench.ts'],
  ['file-list', 'test/bench/file-list-bench.ts'],
  ['bundle size', 'test/bench/bundle-size.ts'],
  ['server', 'test/bench/server-bench.ts'],
] as const;

async function main(): Promise<void> {
  const scratch = await mkdtemp(join(tmpdir(), 'filehost-bench-'));
  const rowsFile = join(scratch, 'rows.jsonl');
  await writeFile(rowsFile, '');
  console.log('=== build (the bundle-size bench measures dist/filehost.js)');
  const built = spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build failed');

  const runs: { name: string; script: string; seconds: number; ok: boolean; output: string[] }[] =
    [];
  for (const [name, script] of BENCHES) {
    console.log(`\n=== ${name} (${script})`);
    const started = Date.now();
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, FILEHOST_BENCH_ROWS: rowsFile },
    });
    process.stdout.write(run.stdout);
    runs.push({
      name,
      script,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      ok: run.status === 0,
      output: run.stdout.split('\n').filter((line) => line.trim() !== ''),
    });
  }
  const rows = (await readFile(rowsFile, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as BenchResult);
  await rm(scratch, { recursive: true, force: true });

  const date = new Date().toISOString();
  const machine = {
    os: type(),
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
  };
  const table = markdownTable(rows);
  const heading = `${date.slice(0, 10)}, ${machine.cpus} cores (${machine.cpu}), ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}; medians`;
  console.log(`\n=== all benches: ${heading}\n\n${table}\n`);
  await mkdir('.bench', { recursive: true });
  await writeFile(
    '.bench/results.json',
    `${JSON.stringify({ date, machine, rows, runs }, null, 2)}\n`,
  );
  await writeFile('.bench/results.md', `${heading}\n\n${table}\n`);
  const failed = runs.filter((r) => !r.ok).map((r) => r.name);
  console.log(
    `written to .bench/results.json and .bench/results.md (${runs.length - failed.length} of ${runs.length} benches ran${failed.length ? `; failed: ${failed.join(', ')}` : ''})`,
  );
  if (failed.length > 0) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
