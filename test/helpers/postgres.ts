import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { ensureDebianPackages, unavailable } from './debian-packages.js';
import { freePort } from './ports.js';
import { isRoot } from './system.js';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

/** A throwaway PostgreSQL 15 cluster on loopback, under a temp dir. */
export interface TestPostgres {
  /** The superuser `postgres` (trust auth) on the `postgres` database. */
  adminUrl: string;
  port: number;
  /** A fresh empty database; answers its `postgres://` URL. */
  createDatabase(): Promise<string>;
  /**
   * The server's main process (its backends are its children), for a bench that counts
   * their CPU time; only on a cluster of one's own (`startPostgres`).
   */
  postmasterPid?(): number;
  /** Stops the server at once (no checkpoint: nothing here is worth keeping) and removes it. */
  stop(): Promise<void>;
}

/** Data directories of clusters still running, stopped on exit if a test run dies first. */
const running = new Set<string>();
let exitHookInstalled = false;
let databases = 0;

/**
 * Installs PostgreSQL 15 where it can; answers null when it is there, else why a suite must
 * be skipped (it throws instead under CI=true). Synchronous, so a test file can decide to
 * register its suites as skipped before any test runs.
 */
export function postgresAvailable(): { skip: string } | null {
  if (ensureDebianPackages(['postgresql-15'], () => existsSync(`${BIN}/initdb`))) return null;
  return unavailable('PostgreSQL 15', 'apt-get install -y postgresql-15');
}

/**
 * Starts a cluster in about a second: `initdb` without syncing, and a server that never
 * fsyncs (a crash of the test machine loses nothing anyone needs). The cluster's default
 * collation is ICU `en-US`, which does not compare in byte order, so a store that relies
 * on the database's collation for id order fails its tests here instead of in production.
 */
export async function startPostgres(): Promise<TestPostgres | { skip: string }> {
  const missing = postgresAvailable();
  if (missing) return missing;

  const dir = await mkdtemp(join(tmpdir(), 'filehost-pg-'));
  const data = join(dir, 'data');
  // initdb and the server refuse to run as root; as root, hand the directory to `postgres`.
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const asOwner = (command: string, args: string[]) =>
    isRoot ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);

  try {
    await asOwner(`${BIN}/initdb`, [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
      '--locale=C.UTF-8',
      '--locale-provider=icu',
      '--icu-locale=en-US',
    ]);
    const port = await freePort();
    const settings = [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
    ].join(' ');
    running.add(data);
    installExitHook();
    try {
      await asOwner(`${BIN}/pg_ctl`, [
        '-D',
        data,
        '-l',
        join(dir, 'log'),
        '-o',
        settings,
        '-w',
        'start',
      ]);
    } catch (error) {
      const log = await readFile(join(dir, 'log'), 'utf8').catch(() => '');
      throw new Error(`PostgreSQL did not start:\n${log.slice(-2000)}`, { cause: error });
    }
    const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    let stopped = false;
    return {
      adminUrl,
      port,
      createDatabase: () => createDatabase(adminUrl),
      postmasterPid: () =>
        Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n', 1)[0]),
      async stop() {
        if (stopped) return;
        stopped = true;
        await asOwner(`${BIN}/pg_ctl`, ['-D', data, '-m', 'immediate', 'stop']).catch(() => {});
        running.delete(data);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (running.has(data)) stopNow(data);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A client for the tests' own statements (making and dropping databases, ageing rows) with
 * bounded waits, as the service's are: without them a connect or a statement that never
 * ended held its test, and its whole file, until the runner's timeout, saying nothing.
 */
export function testClient(connectionString: string): pg.Client {
  return new pg.Client({
    connectionString,
    connectionTimeoutMillis: 10_000,
    query_timeout: 60_000,
  });
}

/**
 * A fresh database on the cluster at `adminUrl`. Its name carries the process id and a
 * random part: processes of one test run may share a cluster (see `attachPostgres`).
 */
async function createDatabase(adminUrl: string): Promise<string> {
  const name = `test_${process.pid}_${++databases}_${randomBytes(3).toString('hex')}`;
  const client = testClient(adminUrl);
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/**
 * A cluster another process started and keeps (the test runner's, shared by the test files
 * of one run, see `helpers/scale.ts`): databases are made as on one's own, and `stop()`
 * drops the databases made through this handle instead of stopping the server.
 */
export function attachPostgres(adminUrl: string): TestPostgres {
  const made: string[] = [];
  return {
    adminUrl,
    port: Number(new URL(adminUrl).port),
    async createDatabase() {
      const url = await createDatabase(adminUrl);
      made.push(new URL(url).pathname.slice(1));
      return url;
    },
    async stop() {
      const client = testClient(adminUrl);
      await client.connect();
      try {
        // FORCE: a pool a test left open must not keep its database on the shared server.
        for (const name of made.splice(0))
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

function stopNow(data: string): void {
  const args = [`${BIN}/pg_ctl`, '-D', data, '-m', 'immediate', 'stop'];
  try {
    if (isRoot) execFileSync('runuser', ['-u', 'postgres', '--', ...args], { stdio: 'ignore' });
    else execFileSync(args[0] as string, args.slice(1), { stdio: 'ignore' });
  } catch {
    // Already stopped.
  }
  running.delete(data);
}

/** A test run that dies before its `after` hook must not leave servers behind. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const data of running) {
      stopNow(data);
      rmSync(join(data, '..'), { recursive: true, force: true });
    }
  });
}
