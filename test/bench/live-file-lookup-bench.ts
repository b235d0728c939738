/**
 * `npx tsx test/bench/live-file-lookup-bench.ts`: what PostgreSQL and the `pg` client spend
 * on one lookup of a live file (the CDN's, `PostgresMetadataStore.getLiveFile`) asked alone,
 * as a batch of one, by the two prepared statements it could be: `id = $1` (the store's
 * before its batches were one statement) and `id = ANY($1::text[])` (every batch's now).
 * The two take turns (A B B A), each turn `LOOKUPS` lookups from `WORKERS` callers at once,
 * each asking one id at a time on its own connection, so every statement is a batch of one;
 * per turn the CPU of PostgreSQL's whole process tree and of this process, per lookup; the
 * medians and the per-pair ratios ANY / `=` are printed. Load is printed with them.
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { PostgresMetadataStore } from '../../src/server/db/postgres/postgres-store.js';
import { FILE_COLUMNS } from '../../src/server/db/sql/records.js';
import { projectRow, readyFileRow } from '../helpers/file-rows.js';
import { startPostgres } from '../helpers/postgres.js';
import { treeCpuMs } from './serving-support.js';
import { median } from './support.js';

type Shape = '= $1' | 'ANY($1)';

const ROWS = 200_000;
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 20_000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 8);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 4);

const STATEMENTS: Record<Shape, (id: string) => pg.QueryConfig<unknown[]>> = {
  '= $1': (id: string) => ({
    name: 'bench_live_file',
    text: `SELECT ${FILE_COLUMNS} FROM files WHERE id = $1 AND status != 'deleted'`,
    values: [id],
  }),
  'ANY($1)': (id: string) => ({
    name: 'bench_live_files',
    text: `SELECT ${FILE_COLUMNS} FROM files WHERE id = ANY($1::text[]) AND status != 'deleted'`,
    values: [[id]],
  }),
};

const server = await startPostgres();
if ('skip' in server) throw new Error(server.skip);
try {
  const url = await server.createDatabase();
  const store = await PostgresMetadataStore.open(url);
  await store.createProject(projectRow({ id: 'prj_bench', name: 'bench' }));
  // A table of a service in use: the lookup's plan is an index probe, as there.
  await store.insertFile(readyFileRow({ id: 'f_bench_0', projectId: 'prj_bench' }));
  await store.close();
  const ids = Array.from({ length: ROWS }, (_, i) => `f_bench_${i}`);
  const copied = FILE_COLUMNS.replace(/^id, /, '');
  const filler = new pg.Client({ connectionString: url });
  await filler.connect();
  await filler.query(
    `INSERT INTO files (${FILE_COLUMNS}) SELECT 'f_bench_' || n, ${copied}
       FROM files, generate_series(1, ${ROWS - 1}) AS n WHERE id = 'f_bench_0'`,
  );
  await filler.query('ANALYZE files');
  await filler.end();

  const pool = new pg.Pool({ connectionString: url, max: WORKERS });
  const postgresPid = server.postmasterPid?.() ?? 0;

  async function turn(shape: Shape): Promise<{ postgresUs: number; clientUs: number }> {
    let next = 0;
    const statement = STATEMENTS[shape];
    const pgBefore = treeCpuMs(postgresPid);
    const clientBefore = process.cpuUsage();
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (next < LOOKUPS) {
          const id = ids[next++ % ROWS] as string;
          const { rows } = await pool.query(statement(id));
          if (rows.length !== 1) throw new Error(`${shape}: no row for ${id}`);
        }
      }),
    );
    const client = process.cpuUsage(clientBefore);
    return {
      postgresUs: ((treeCpuMs(postgresPid) - pgBefore) * 1000) / LOOKUPS,
      clientUs: (client.user + client.system) / LOOKUPS,
    };
  }

  await turn('= $1');
  await turn('ANY($1)');
  const measured: Record<Shape, { postgresUs: number; clientUs: number }[]> = {
    '= $1': [],
    'ANY($1)': [],
  };
  const load = [loadavg()[0] ?? 0];
  for (let pair = 0; pair < PAIRS; pair++) {
    const order: Shape[] = pair % 2 === 0 ? ['= $1', 'ANY($1)'] : ['ANY($1)', '= $1'];
    for (const shape of order) measured[shape].push(await turn(shape));
    load.push(loadavg()[0] ?? 0);
  }
  await pool.end();

  const f = (value: number) => value.toFixed(1);
  console.log(
    `\nA live file looked up alone (a batch of one), prepared: ${PAIRS} pairs of ${LOOKUPS} lookups, ${WORKERS} at once; load ${f(Math.min(...load))}-${f(Math.max(...load))}\n`,
  );
  console.log(
    'statement    PostgreSQL µs/lookup (median, all)       client µs/lookup (median, all)',
  );
  for (const shape of Object.keys(measured) as Shape[]) {
    const runs = measured[shape];
    const pgUs = runs.map((run) => run.postgresUs);
    const clientUs = runs.map((run) => run.clientUs);
    console.log(
      `${shape.padEnd(12)} ${f(median(pgUs)).padStart(6)} (${pgUs.map(f).join(' ')})`.padEnd(54) +
        `${f(median(clientUs)).padStart(6)} (${clientUs.map(f).join(' ')})`,
    );
  }
  const ratios = (of: 'postgresUs' | 'clientUs') =>
    measured['ANY($1)'].map((run, i) => run[of] / (measured['= $1'][i]?.[of] ?? Number.NaN));
  const pgRatios = ratios('postgresUs');
  const clientRatios = ratios('clientUs');
  console.log(
    `\nANY / = per pair: PostgreSQL ${f(median(pgRatios) * 100)}% (${pgRatios.map((r) => r.toFixed(3)).join(' ')}), client ${f(median(clientRatios) * 100)}% (${clientRatios.map((r) => r.toFixed(3)).join(' ')})`,
  );
} finally {
  await server.stop();
}
