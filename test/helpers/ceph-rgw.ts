import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { configureBucket, s3ClientFor } from '../../src/server/storage/s3/bucket-setup.js';
import { ensureDebianPackages, unavailable } from './debian-packages.js';
import { freePort } from './ports.js';
import { isRunning } from './process-tree.js';

const run = promisify(execFile);

/** A throwaway one-node Ceph cluster with a RADOS Gateway on loopback, under a temp dir. */
export interface TestRgw {
  /** `http://127.0.0.1:<port>`; buckets are addressed path-style. */
  endpoint: string;
  region: 'us-east-1';
  accessKeyId: string;
  secretAccessKey: string;
  /** Milliseconds from `startRgw()` to a gateway that answers signed S3 requests. */
  bootMs: number;
  /** Milliseconds per boot step, in order, for whoever tunes the boot. */
  timings: Record<string, number>;
  /**
   * Creates a bucket (a fresh unique name by default) and answers its name. With
   * `corsOrigins`, the bucket allows a page on those origins to PUT parts and read their
   * `ETag`, as a deployment's bucket must.
   */
  createBucket(name?: string, options?: { corsOrigins?: string[] }): Promise<string>;
  /** Caps a bucket's bytes with an RGW quota (enabled at once). */
  setBucketQuota(bucket: string, maxBytes: number): Promise<void>;
  /**
   * Freezes the gateway (SIGSTOP): connections are accepted by the kernel but nothing is
   * answered, as with a hung store. Answers the function that thaws it.
   */
  freeze(): () => void;
  /** The gateway's and its cluster's process ids, for a bench that counts their CPU time. */
  pids(): number[];
  /** Stops every daemon (SIGTERM, then SIGKILL) and removes the temp dir. */
  stop(): Promise<void>;
}

const PACKAGES = ['radosgw', 'ceph-mon', 'ceph-osd'];
const BINARIES = [
  'ceph-mon',
  'ceph-osd',
  'radosgw',
  'radosgw-admin',
  'ceph',
  'ceph-authtool',
  'monmaptool',
];
const DIR_PREFIX = 'filehost-rgw-';
/** Generous: a cold boot takes a few seconds; past this something is wrong, not slow. */
const BOOT_DEADLINE_MS = 60_000;
const STOP_GRACE_MS = 3_000;
/** For `radosgw-admin` after the boot (about 0.3 s each on an idle machine). */
const ADMIN_MS = 30_000;
/** Ample for the tests and bounded: memstore keeps every byte in RAM. */
const MEMSTORE_BYTES = 2 * 1024 ** 3;

interface Daemon {
  name: string;
  child: ChildProcess;
  /** Set once the process is gone. */
  exited: { code: number | null; signal: NodeJS.Signals | null } | null;
  gone: Promise<void>;
}

interface Cluster {
  dir: string;
  daemons: Daemon[];
  /** While booting: told when a daemon exits, which fails the boot at once. */
  onExit: ((entry: Daemon) => void) | null;
}

/** Clusters still running, killed on exit if a test run dies before its `after` hook. */
const running = new Set<Cluster>();
let hooksInstalled = false;
let buckets = 0;

/**
 * Installs Ceph's RADOS Gateway where it can; answers null when it is there, else why a
 * suite must be skipped (it throws instead under CI=true). Synchronous, so a test file
 * can register its tests as skipped before any of them runs.
 */
export function rgwAvailable(): { skip: string } | null {
  const ready = () => BINARIES.every(onPath);
  if (ensureDebianPackages(PACKAGES, ready, { noRecommends: true })) return null;
  return unavailable(
    "Ceph's RADOS Gateway",
    `apt-get install -y --no-install-recommends ${PACKAGES.join(' ')}`,
  );
}

/**
 * Boots a one-node cluster in a few seconds: a monitor, one OSD on memstore (RAM, bounded,
 * gone when it stops), pools of size 1, and a gateway with one S3 user. Authentication
 * inside the cluster is off (it listens on loopback only); S3 requests are still signed
 * and checked against the user's keys, as on AWS.
 */
export async function startRgw(
  /** RAM the OSD may fill (memstore): 2 GiB by default; a bench of big uploads asks for more. */
  options: { memstoreBytes?: number } = {},
): Promise<TestRgw | { skip: string }> {
  const missing = rgwAvailable();
  if (missing) return missing;
  sweepAbandonedClusters();

  const started = performance.now();
  const deadline = Date.now() + BOOT_DEADLINE_MS;
  const dir = await mkdtemp(join(tmpdir(), DIR_PREFIX));
  const cluster: Cluster = { dir, daemons: [], onExit: null };
  running.add(cluster);
  installHooks();
  const timings: Record<string, number> = {};
  let last = started;
  // A daemon that dies fails the step under way at once, and the boot's own commands are
  // killed, instead of everything waiting for the deadline.
  const abort = new AbortController();
  const died = new Promise<never>((_, reject) => {
    cluster.onExit = (entry) => reject(new Error(`${entry.name} exited (${exitReason(entry)})`));
  });
  died.catch(() => {});
  const step = async <T>(name: string, action: () => Promise<T>): Promise<T> => {
    try {
      return await Promise.race([action(), died]);
    } catch (error) {
      abort.abort();
      throw new Error(
        `Ceph RGW did not start: ${name} failed: ${(error as Error).message}\n${logTails(cluster)}`,
        { cause: error },
      );
    } finally {
      const now = performance.now();
      timings[name] = Math.round(now - last);
      last = now;
    }
  };

  try {
    const [monPort, rgwPort] = await Promise.all([freePort(), freePort()]);
    const conf = join(dir, 'ceph.conf');
    const keyring = join(dir, 'keyring');
    const fsid = randomUUID();
    const osdUuid = randomUUID();
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    const accessKeyId = randomBytes(10).toString('hex').toUpperCase();
    const secretAccessKey = randomBytes(20).toString('hex');
    const ceph = (command: string, args: string[], timeout = remaining(deadline)) =>
      run(command, ['-c', conf, ...args], { timeout, encoding: 'utf8', signal: abort.signal });

    await step('write ceph.conf', async () => {
      await Promise.all(
        ['mon', 'osd', 'rgw', 'run', 'log', 'crash'].map((sub) => mkdir(join(dir, sub))),
      );
      await writeFile(join(dir, 'owner'), String(process.pid));
      const memstoreBytes = options.memstoreBytes ?? MEMSTORE_BYTES;
      await writeFile(conf, cephConf({ dir, fsid, monPort, rgwPort, keyring, memstoreBytes }));
    });
    await step('create the monitor', async () => {
      await run('ceph-authtool', [
        '--create-keyring',
        keyring,
        '--gen-key',
        '-n',
        'mon.',
        '--cap',
        'mon',
        'allow *',
      ]);
      const monmap = join(dir, 'monmap');
      await run('monmaptool', [
        '--create',
        '--add',
        'a',
        `v2:127.0.0.1:${monPort}`,
        '--fsid',
        fsid,
        monmap,
      ]);
      await ceph('ceph-mon', ['--mkfs', '-i', 'a', '--monmap', monmap, '--keyring', keyring]);
    });
    // The OSD's store does not need the monitor yet, so it is made while the monitor boots.
    const osdMkfs = ceph('ceph-osd', [
      '--no-mon-config',
      '--mkfs',
      '-i',
      '0',
      '--osd-uuid',
      osdUuid,
    ]);
    osdMkfs.catch(() => {});
    await step('start the monitor and register the OSD', async () => {
      cluster.daemons.push(daemon(cluster, 'mon.a', 'ceph-mon', ['-c', conf, '-f', '-i', 'a']));
      const { stdout } = await ceph('ceph', [
        '--connect-timeout',
        String(Math.ceil(remaining(deadline) / 1000)),
        'osd',
        'new',
        osdUuid,
      ]);
      // A fresh cluster numbers its first OSD 0, which the store above was made for.
      if (stdout.trim() !== '0') throw new Error(`expected OSD id 0, got ${stdout.trim()}`);
    });
    await step('make the OSD store', () => osdMkfs);
    await step('start the OSD and the gateway', async () => {
      // The gateway waits for the OSD by itself; starting both at once saves a second.
      cluster.daemons.push(daemon(cluster, 'osd.0', 'ceph-osd', ['-c', conf, '-f', '-i', '0']));
      cluster.daemons.push(
        daemon(cluster, 'client.rgw.a', 'radosgw', ['-c', conf, '-f', '-n', 'client.rgw.a']),
      );
      await waitFor(cluster, deadline, 'the gateway to answer HTTP', async () => {
        const response = await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
        await response.body?.cancel();
        return true;
      });
    });
    await step('create the S3 user', () =>
      ceph('radosgw-admin', [
        'user',
        'create',
        '--uid=filehost-test',
        '--display-name=filehost test',
        `--access-key=${accessKeyId}`,
        `--secret=${secretAccessKey}`,
      ]),
    );
    const client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId, secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 1,
    });
    await step('wait for signed S3 requests', () =>
      waitFor(cluster, deadline, 'the gateway to accept the user', async () => {
        await client.send(new ListBucketsCommand({}));
        return true;
      }),
    );

    cluster.onExit = null;
    let stopped: Promise<void> | null = null;
    const frozen = new Set<() => void>();
    return {
      endpoint,
      region: 'us-east-1',
      accessKeyId,
      secretAccessKey,
      bootMs: Math.round(performance.now() - started),
      timings,
      createBucket: (name, options) =>
        createBucket(client, { endpoint, accessKeyId, secretAccessKey }, name, options),
      async setBucketQuota(bucket, maxBytes) {
        const scope = ['--quota-scope=bucket', `--bucket=${bucket}`];
        await ceph('radosgw-admin', ['quota', 'set', ...scope, `--max-size=${maxBytes}`], ADMIN_MS);
        await ceph('radosgw-admin', ['quota', 'enable', ...scope], ADMIN_MS);
      },
      pids: () =>
        cluster.daemons.flatMap((entry) =>
          entry.child.pid && !entry.exited ? [entry.child.pid] : [],
        ),
      freeze() {
        const gateway = cluster.daemons.find((entry) => entry.name === 'client.rgw.a');
        if (!gateway?.child.pid || gateway.exited) throw new Error('the gateway is not running');
        const pid = gateway.child.pid;
        process.kill(pid, 'SIGSTOP');
        let thawed = false;
        const thaw = () => {
          if (thawed) return;
          thawed = true;
          frozen.delete(thaw);
          try {
            process.kill(pid, 'SIGCONT');
          } catch {
            // Killed meanwhile: nothing to thaw.
          }
        };
        frozen.add(thaw);
        return thaw;
      },
      stop() {
        stopped ??= (async () => {
          // A stopped process ignores SIGTERM until it is continued.
          for (const thaw of [...frozen]) thaw();
          client.destroy();
          await stopCluster(cluster);
        })();
        return stopped;
      },
    };
  } catch (error) {
    await stopCluster(cluster);
    throw error;
  }
}

function cephConf(options: {
  dir: string;
  fsid: string;
  monPort: number;
  rgwPort: number;
  keyring: string;
  memstoreBytes: number;
}): string {
  const { dir, fsid, monPort, rgwPort, keyring, memstoreBytes } = options;
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
public addr = 127.0.0.1
cluster addr = 127.0.0.1
# Ceph 16 has no "auth * required": the three options are spelled out (an unknown name
# is ignored silently, and cephx stays on).
auth cluster required = none
auth service required = none
auth client required = none
# radosgw asks for an encrypted ("secure") monitor session by default, which only cephx
# can give: without this it retries for rgw_init_timeout (5 minutes), then fails.
ms mon client mode = crc secure
keyring = ${keyring}
run dir = ${dir}/run
admin socket = ${dir}/run/$cluster-$name.asok
pid file = ${dir}/run/$name.pid
log file = ${dir}/log/$name.log
crash dir = ${dir}/crash
mon cluster log to file = false
# A pool creation is a monitor commit, and the gateway creates six or seven pools on
# first use; with the default 1 s proposal interval each takes about 2 s (boot 13 s,
# the first bucket, the first object and the first multipart upload 2 s each).
paxos propose interval = 0.01
paxos min wait = 0.001
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
# Fewer placement groups per pool: each is created and peered on the one OSD.
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
# The monitor stops itself when its disk has less than 5 % free; a test machine's disk
# is none of its business.
mon data avail warn = 1
mon data avail crit = 0

[mon]
mon data = ${dir}/mon

[osd]
osd data = ${dir}/osd
osd objectstore = memstore
memstore device bytes = ${memstoreBytes}

[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw data = ${dir}/rgw
rgw dynamic resharding = false
# The parts and tails of deleted objects go to a garbage queue, by default for two hours:
# a gateway shared by a whole test run (see attachRgw) would keep them all in memory.
rgw gc obj min wait = 5
rgw gc processor period = 10
# The gateway may send its first writes before the OSD is up; they are resent on the
# client's next tick, 5 s by default (boots took 2 s or 7 s at random).
objecter tick interval = 0.1
`;
}

function daemon(cluster: Cluster, name: string, command: string, args: string[]): Daemon {
  const output = openSync(join(cluster.dir, 'log', `${name}.out`), 'a');
  // Not detached: a Ctrl-C in the terminal reaches the daemons with the test run.
  const child = spawn(command, args, { stdio: ['ignore', output, output] });
  closeSync(output);
  // For `sweepAbandonedClusters`: radosgw in the foreground writes no pid file of its own.
  if (child.pid) appendFileSync(join(cluster.dir, 'pids'), `${child.pid}\n`);
  // The daemons must not keep a test run alive; `stop()` or the exit hook ends them.
  child.unref();
  const entry: Daemon = {
    name,
    child,
    exited: null,
    gone: new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        entry.exited = { code, signal };
        cluster.onExit?.(entry);
        resolve();
      });
      child.once('error', (error) => {
        entry.exited = { code: null, signal: null };
        appendNote(cluster, name, error.message);
        cluster.onExit?.(entry);
        resolve();
      });
    }),
  };
  return entry;
}

function appendNote(cluster: Cluster, name: string, message: string): void {
  writeFile(join(cluster.dir, 'log', `${name}.out`), `${message}\n`, { flag: 'a' }).catch(() => {});
}

/** Where a running gateway answers, and its S3 user: what another process needs to use it. */
export interface RgwAddress {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
}

async function createBucket(
  client: S3Client,
  { endpoint, accessKeyId, secretAccessKey }: RgwAddress,
  name?: string,
  options: { corsOrigins?: string[] } = {},
): Promise<string> {
  const bucket = name ?? `test-${process.pid}-${++buckets}-${randomBytes(3).toString('hex')}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  if (options.corsOrigins) {
    // Exactly what `npm run admin -- bucket setup` applies (and docs/running-at-scale.md shows).
    await configureBucket(
      {
        bucket,
        region: 'us-east-1',
        endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId, secretAccessKey },
      },
      options.corsOrigins,
    );
  }
  return bucket;
}

/**
 * A gateway another process started and keeps (the test runner's, shared by the test files
 * of one run, see `helpers/scale.ts`). Buckets are made as on one's own; `stop()` empties
 * and deletes the buckets made through this handle, so that a whole run's objects do not
 * pile up in the OSD's memory. It cannot be frozen or given quotas: that would reach every
 * test file using it at once (`startRgw()` gives a test a gateway of its own for that).
 */
export function attachRgw(address: RgwAddress): TestRgw {
  const rgw: TestRgw = {
    ...address,
    region: 'us-east-1',
    bootMs: 0,
    timings: {},
    async createBucket(name, options) {
      const bucket = await createBucket(client, address, name, options);
      made.push(bucket);
      return bucket;
    },
    setBucketQuota() {
      throw new Error('a shared gateway takes no quotas: start one with startRgw()');
    },
    freeze() {
      throw new Error('a shared gateway cannot be frozen: start one with startRgw()');
    },
    pids() {
      throw new Error('a shared gateway has no processes of ours: start one with startRgw()');
    },
    async stop() {
      for (const bucket of made.splice(0)) await emptyAndDelete(client, bucket);
      client.destroy();
    },
  };
  const made: string[] = [];
  const client = rgwClient(rgw);
  return rgw;
}

async function emptyAndDelete(client: S3Client, bucket: string): Promise<void> {
  for (;;) {
    const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    for (const { Key, UploadId } of uploads.Uploads ?? []) {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId }));
    }
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (listed.Contents ?? []).map(({ Key }) => ({ Key }));
    if (keys.length > 0) {
      await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
    }
    if (!uploads.IsTruncated && !listed.IsTruncated) break;
  }
  await client.send(new DeleteBucketCommand({ Bucket: bucket }));
}

/** Polls `check` until it answers true; fails at once if a daemon died meanwhile. */
async function waitFor(
  cluster: Cluster,
  deadline: number,
  what: string,
  check: () => Promise<boolean>,
): Promise<void> {
  let lastError: unknown = null;
  for (;;) {
    const dead = cluster.daemons.find((entry) => entry.exited);
    if (dead?.exited) {
      const { code, signal } = dead.exited;
      throw new Error(
        `${dead.name} exited (${signal ?? `code ${code}`}) while waiting for ${what}`,
      );
    }
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what} (last error: ${(lastError as Error | null)?.message})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function exitReason(entry: Daemon): string {
  return entry.exited?.signal ?? `code ${entry.exited?.code}`;
}

function remaining(deadline: number): number {
  return Math.max(1000, deadline - Date.now());
}

/** The last lines of every daemon's log and output, so a failed boot says why. */
function logTails(cluster: Cluster): string {
  const logDir = join(cluster.dir, 'log');
  let names: string[];
  try {
    names = readdirSync(logDir).sort();
  } catch {
    return '(no logs)';
  }
  return names
    .map((name) => {
      const tail = readFileSync(join(logDir, name), 'utf8').trimEnd().split('\n').slice(-15);
      return tail[0] ? `--- ${name} (last lines) ---\n${tail.join('\n')}` : '';
    })
    .filter(Boolean)
    .join('\n');
}

async function stopCluster(cluster: Cluster): Promise<void> {
  // In the reverse order of their dependencies: a gateway whose OSD is gone hangs in its
  // shutdown, and an OSD waits up to 5 s for the monitor to acknowledge that it leaves.
  for (const name of ['client.rgw.a', 'osd.0', 'mon.a']) {
    await terminate(cluster.daemons.filter((entry) => entry.name === name));
  }
  running.delete(cluster);
  await rm(cluster.dir, { recursive: true, force: true });
}

/** SIGTERM, then SIGKILL to whatever is still there after the grace period. */
async function terminate(daemons: Daemon[]): Promise<void> {
  const alive = daemons.filter((entry) => !entry.exited);
  for (const entry of alive) {
    // Unreferenced children do not keep the process alive, so their exit could go unseen.
    entry.child.ref();
    entry.child.kill('SIGTERM');
  }
  const graceful = Promise.all(alive.map((entry) => entry.gone));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), STOP_GRACE_MS);
  });
  if ((await Promise.race([graceful, late])) === 'late') {
    for (const entry of alive) if (!entry.exited) entry.child.kill('SIGKILL');
    await graceful;
  }
  clearTimeout(timer);
}

/** Synchronous, for the exit hook: no time is left to be polite. */
function killNow(cluster: Cluster): void {
  for (const entry of cluster.daemons) {
    if (!entry.exited) entry.child.kill('SIGKILL');
  }
  running.delete(cluster);
  rmSync(cluster.dir, { recursive: true, force: true });
}

/** A test run that dies before its `after` hook must not leave daemons behind. */
function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once('exit', () => {
    for (const cluster of running) killNow(cluster);
  });
  // A signal would end the process without 'exit'; kill the daemons, then let the signal
  // do what it would have done.
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      for (const cluster of running) killNow(cluster);
      process.kill(process.pid, signal);
    });
  }
}

/**
 * Removes clusters whose test run was killed outright (SIGKILL leaves no chance to clean
 * up): their owner process is gone. A daemon is killed only if its command line names the
 * cluster's own directory, so a reused process id is never hit.
 */
function sweepAbandonedClusters(): void {
  let entries: string[];
  try {
    entries = readdirSync(tmpdir()).filter((name) => name.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of entries) {
    const dir = join(tmpdir(), name);
    const owner = Number(readText(join(dir, 'owner')));
    if (!Number.isInteger(owner) || owner <= 0 || isRunning(owner)) continue;
    for (const line of readText(join(dir, 'pids')).split('\n')) {
      const pid = Number(line);
      if (!Number.isInteger(pid) || pid <= 0) continue;
      if (readText(`/proc/${pid}/cmdline`).includes(dir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '/usr/bin:/bin')
    .split(':')
    .some((dir) => dir !== '' && existsSync(join(dir, command)));
}

/** For a one-off check by hand: `npx tsx test/helpers/ceph-rgw.ts` boots, reports, stops. */
async function main(): Promise<void> {
  const rgw = await startRgw();
  if ('skip' in rgw) {
    console.log(rgw.skip);
    return;
  }
  console.log(`RGW at ${rgw.endpoint} in ${rgw.bootMs} ms`, rgw.timings);
  let started = performance.now();
  await rgw.createBucket(undefined, { corsOrigins: ['http://example.test'] });
  console.log(`first bucket in ${Math.round(performance.now() - started)} ms`);
  started = performance.now();
  await rgw.stop();
  console.log(`stopped in ${Math.round(performance.now() - started)} ms`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

/** An S3 client for looking into the gateway's buckets behind the service's back. */
export function rgwClient(rgw: TestRgw): S3Client {
  return s3ClientFor({
    bucket: '',
    region: rgw.region,
    endpoint: rgw.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
  });
}
