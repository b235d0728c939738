import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ensureDebianPackages, unavailable } from './debian-packages.js';
import { freePort } from './ports.js';
import { isRoot } from './system.js';

const CLAMD = '/usr/sbin/clamd';
const SHM = '/dev/shm';

/** Whether a clamd listens on `socket`: `zPING\0` answered with `PONG`. */
function answersPing(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = '';
    const connection = createConnection(socket, () => connection.end('zPING\0'));
    connection.setTimeout(2000, () => connection.destroy());
    connection.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    connection.once('error', () => resolve(false));
    connection.once('close', () => resolve(answer.startsWith('PONG')));
  });
}

/**
 * The EICAR anti-virus test file: harmless, and recognised by every scanner as a test
 * virus. Its MD5 is in the throwaway daemon's `.hdb`, so it is found by its whole bytes.
 */
export const EICAR = Buffer.from(
  'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*',
  'latin1',
);
export const EICAR_SIGNATURE = 'Filehost.Test.Eicar.UNOFFICIAL';

/**
 * A body signature of our own (`.ndb`): these bytes anywhere in a file make it "infected",
 * so a test can bury them deep in a large file and prove that the whole stream is scanned.
 */
export const MARKER = Buffer.from('FILEHOST-TEST-MALWARE-MARKER-7f3a9c', 'latin1');
export const MARKER_SIGNATURE = 'Filehost.Test.Marker.UNOFFICIAL';

/**
 * clamd's limits as docs/security.md tells operators to set them (its `clamd.conf` block;
 * `test/server/ingest/scan-limits.test.ts` checks the two agree), sized for the largest
 * file the tests scan (the scan benchmark's 256 MiB): a stream, a file and what a scan
 * inflates are each bounded by it, and a limit reached is a finding (`AlertExceedsMax`),
 * never a silent "OK".
 */
export const CLAMD_LIMITS = [
  'StreamMaxLength 300M',
  'MaxFileSize 300M',
  'MaxScanSize 300M',
  'MaxScanTime 30000',
  'MaxRecursion 17',
  'MaxFiles 10000',
  'AlertExceedsMax yes',
] as const;

/** The limit on what one scan reads or inflates, in bytes (`MaxScanSize 300M`: MiB). */
export const CLAMD_MAX_SCAN_BYTES = 300 * 1024 * 1024;

/** A real clamd on a unix socket and a loopback port, with a signature database of its own. */
export interface TestClamd {
  /** The unix socket's path (a `FILEHOST_CLAMD` value). */
  socket: string;
  /** `tcp://127.0.0.1:<port>` (a `FILEHOST_CLAMD` value). */
  tcp: string;
  dir: string;
  /** clamd's `TemporaryDirectory`: a stream being received is a file here. */
  streams: string;
  pid(): number;
  /** SIGKILL, as a crash of the daemon; `start` brings it back on the same socket. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP / SIGCONT: a daemon that accepts connections but does not move (slow). */
  pause(): void;
  resume(): void;
  /** `clamdscan` of a file through this daemon (for the benchmark's yardstick). */
  clamdscan(file: string): void;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

/** Installs `clamav-daemon` where it can; null when clamd is there, else why to skip. */
export function clamdAvailable(): { skip: string } | null {
  const ready = () => existsSync(CLAMD);
  if (ensureDebianPackages(['clamav-daemon'], ready, { noRecommends: true })) {
    stopPackageServices();
    return null;
  }
  return unavailable('ClamAV (clamd)', 'apt-get install -y clamav-daemon');
}

/**
 * Debian starts its own clamd and freshclam after install (where systemd runs). Ours has
 * its own socket and database, so theirs are only in the way (freshclam cannot reach its
 * mirror offline anyway): stop them, if there are any.
 */
function stopPackageServices(): void {
  try {
    execFileSync('systemctl', ['stop', 'clamav-daemon', 'clamav-freshclam'], { stdio: 'ignore' });
  } catch {
    // No systemd (a container): nothing was started.
  }
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Starts clamd in the foreground under a temp dir: its database is two signatures of ours
 * (EICAR by MD5, `MARKER` by body); its limits are `CLAMD_LIMITS`.
 *
 * clamd writes every stream it receives to a file in its `TemporaryDirectory` before
 * scanning it; that directory is on tmpfs (`/dev/shm`, where there is one), as the README
 * advises a deployment: on this machine's ext4 (mounted `discard`) creating and removing
 * those files was about a third of clamd's CPU time per small file. `streamsOnDisk` keeps
 * them under the temp dir instead (the benchmark's `BENCH_CLAMD_STREAMS=disk`).
 */
export async function startClamd(
  options: { streamsOnDisk?: boolean } = {},
): Promise<TestClamd | { skip: string }> {
  const missing = clamdAvailable();
  if (missing) return missing;
  const dir = await mkdtemp(join(tmpdir(), 'filehost-clamd-'));
  const streams =
    options.streamsOnDisk || !existsSync(SHM) ? dir : await mkdtemp(join(SHM, 'filehost-clamd-'));
  const db = join(dir, 'db');
  await mkdir(db);
  const md5 = createHash('md5').update(EICAR).digest('hex');
  await writeFile(join(db, 'filehost.hdb'), `${md5}:${EICAR.length}:Filehost.Test.Eicar\n`);
  await writeFile(join(db, 'filehost.ndb'), `Filehost.Test.Marker:0:*:${MARKER.toString('hex')}\n`);
  const socket = join(dir, 'clamd.sock');
  const port = await freePort();
  const conf = join(dir, 'clamd.conf');
  await writeFile(
    conf,
    [
      'Foreground yes',
      `LocalSocket ${socket}`,
      'TCPAddr 127.0.0.1',
      `TCPSocket ${port}`,
      `DatabaseDirectory ${db}`,
      `LogFile ${join(dir, 'clamd.log')}`,
      `PidFile ${join(dir, 'clamd.pid')}`,
      `TemporaryDirectory ${streams}`,
      ...(isRoot ? ['User root'] : []),
      ...CLAMD_LIMITS,
      'MaxThreads 8',
      'SelfCheck 3600',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;
  const start = async () => {
    await rm(socket, { force: true });
    const started = spawn(CLAMD, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    running.add(started);
    installExitHook();
    let stderr = '';
    started.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    started.once('exit', () => running.delete(started));
    const deadline = Date.now() + 60_000;
    // The socket appears once the database is loaded, and is bound a moment before clamd
    // listens on it (a connection then is refused, more often on a busy machine): ready is
    // when it answers PING.
    while (!existsSync(socket) || !(await answersPing(socket))) {
      if (started.exitCode !== null || Date.now() > deadline) {
        started.kill('SIGKILL');
        const log = await readFile(join(dir, 'clamd.log'), 'utf8').catch(() => '');
        throw new Error(`clamd did not start:\n${stderr}\n${log.slice(-2000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const kill = async () => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGCONT');
    current.kill('SIGKILL');
    await exited;
  };
  try {
    await start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    await rm(streams, { recursive: true, force: true });
    throw error;
  }
  return {
    socket,
    tcp: `tcp://127.0.0.1:${port}`,
    dir,
    streams,
    pid: () => child?.pid ?? 0,
    kill,
    start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    clamdscan(file) {
      execFileSync('clamdscan', ['--config-file', conf, '--stream', '--no-summary', file], {
        stdio: 'ignore',
      });
    },
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
      await rm(streams, { recursive: true, force: true });
    },
  };
}

/** A test run that dies before its `after` hook must not leave daemons behind. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });
}

/**
 * A gzip of `bytes` zeros: an archive bomb of the simplest kind (400 MB of zeros are about
 * 390 KB), made as a stream so the zeros are never held.
 */
export async function zerosGzip(bytes: number): Promise<Buffer> {
  const zeros = Buffer.alloc(1024 * 1024);
  async function* source() {
    for (let left = bytes; left > 0; left -= zeros.length) {
      yield left >= zeros.length ? zeros : zeros.subarray(0, left);
    }
  }
  const chunks: Buffer[] = [];
  const gzip = createGzip({ level: 9 });
  const collected = (async () => {
    for await (const chunk of gzip) chunks.push(chunk as Buffer);
  })();
  await pipeline(Readable.from(source()), gzip);
  await collected;
  return Buffer.concat(chunks);
}
