import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newApiKey } from '../../src/server/ground/secrets.js';
import { spawnService, startServiceProcess } from '../helpers/service.js';

const IS_ROOT = process.getuid?.() === 0;
const NEEDS_ROOT = IS_ROOT ? false : 'needs root to mount a file system (CI runs as root)';
/** The unprivileged user of Debian, for the one case root cannot show (root writes anywhere). */
const NOBODY = 65534;

interface Refusal {
  code: number | null;
  output: string;
}

/** Starts `npm run server`'s entry as its own process and waits for it to give up. */
async function refusedStart(
  env: Record<string, string>,
  options: { uid?: number; gid?: number } = {},
): Promise<Refusal> {
  const { child, output } = startServiceProcess(env, options);
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  // 'close', not 'exit': the last line may still be in the pipe when the process exits.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  return { code, output: output() };
}

/** A port on 127.0.0.1 another server holds, for a start that must refuse it. */
async function occupiedPort(): Promise<{ busy: Server; port: number }> {
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  return { busy, port: (busy.address() as AddressInfo).port };
}

/** One line naming the cause and the setting, a non-zero exit, no stack trace. */
function assertOneLine(refusal: Refusal, cause: RegExp, setting: string): void {
  assert.notEqual(refusal.code, 0, refusal.output);
  assert.ok(refusal.code !== null, `it exited by itself: ${refusal.output}`);
  const lines = refusal.output.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `one line, not:\n${refusal.output}`);
  assert.doesNotMatch(refusal.output, /\n\s+at |Error:|node:internal/, 'no stack trace');
  assert.match(refusal.output, cause);
  assert.ok(refusal.output.includes(setting), `names ${setting}: ${refusal.output}`);
}

describe('start-up refusals: one line, the cause, the setting, a non-zero exit', {
  skip:
    process.env.FILEHOST_TEST_DEPLOYMENT === 'scale'
      ? 'the embedded data dir; scale-faults covers PostgreSQL and S3'
      : false,
  timeout: 180_000,
}, () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'filehost-startup-'));
    // The unprivileged user below must be able to reach folders inside it.
    await chmod(root, 0o755);
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('a data dir whose parent does not exist (a mistyped path is not quietly made)', async () => {
    const refusal = await refusedStart({ FILEHOST_DATA_DIR: join(root, 'nope', 'data') });
    assertOneLine(refusal, /does not exist/, 'FILEHOST_DATA_DIR');
  });

  it('makes a missing data dir whose parent exists', async () => {
    const service = await spawnService({ FILEHOST_DATA_DIR: join(root, 'fresh') });
    service.process.kill('SIGTERM');
    assert.equal((await service.exited).code, 0);
  });

  it('a weak key in the environment', async () => {
    for (const [variable, key] of [
      ['FILEHOST_SECRET_KEY', 'sk_live_a'],
      ['FILEHOST_SECRET_KEY', `sk_live_${'a'.repeat(31)}`],
      ['FILEHOST_PUBLISHABLE_KEY', `pk_live_${'a'.repeat(31)}+`],
    ] as const) {
      const refusal = await refusedStart({
        FILEHOST_DATA_DIR: join(root, 'weak'),
        [variable]: key,
      });
      assertOneLine(refusal, /at least 32 URL-safe characters/, variable);
    }
    // Long enough, but guessable: refused too, naming the command that makes a good one.
    const refusal = await refusedStart({
      FILEHOST_DATA_DIR: join(root, 'weak'),
      FILEHOST_SECRET_KEY: `sk_live_${'a'.repeat(36)}`,
    });
    assertOneLine(refusal, /guessable.*keys generate/, 'FILEHOST_SECRET_KEY');
  });

  it('a key given in the environment replaces the generated one, which stops working', async () => {
    const dataDir = join(root, 'replaced');
    const first = await spawnService({ FILEHOST_DATA_DIR: dataDir });
    first.process.kill('SIGTERM');
    await first.exited;
    const secretKey = newApiKey('secret');
    const publishableKey = newApiKey('publishable');
    const second = await spawnService({
      FILEHOST_DATA_DIR: dataDir,
      FILEHOST_SECRET_KEY: secretKey,
      FILEHOST_PUBLISHABLE_KEY: publishableKey,
    });
    try {
      assert.equal(second.secretKey, secretKey);
      const files = (key: string) =>
        fetch(`${second.apiUrl}/v1/files`, {
          headers: { Authorization: `Bearer ${key}`, Origin: 'http://localhost:5173' },
        });
      assert.equal((await files(secretKey)).status, 200);
      assert.equal((await files(publishableKey)).status, 200);
      assert.equal((await files(first.secretKey)).status, 401, 'the generated secret key');
      assert.equal((await files(first.publishableKey)).status, 401, 'the generated one');
    } finally {
      second.process.kill('SIGTERM');
      await second.exited;
    }
    // Changed again: the key it replaces stops working too.
    const newer = newApiKey('secret');
    const third = await spawnService({ FILEHOST_DATA_DIR: dataDir, FILEHOST_SECRET_KEY: newer });
    try {
      const status = async (key: string) =>
        (await fetch(`${third.apiUrl}/v1/files`, { headers: { Authorization: `Bearer ${key}` } }))
          .status;
      assert.equal(await status(newer), 200);
      assert.equal(await status(secretKey), 401);
    } finally {
      third.process.kill('SIGTERM');
      await third.exited;
    }
  });

  it("makes a data dir that exists owner-only, the database inside it out of others' reach", async () => {
    const open = join(root, 'open');
    await mkdir(open, { mode: 0o755 });
    await chmod(open, 0o755);
    const service = await spawnService({ FILEHOST_DATA_DIR: open });
    service.process.kill('SIGTERM');
    await service.exited;
    assert.equal((await stat(open)).mode & 0o777, 0o700);
    // Another user cannot read the database any more: the folder does not let them in.
    const reader = spawnSync('cat', [join(open, 'filehost.db')], { uid: NOBODY, gid: NOBODY });
    assert.notEqual(reader.status, 0);
    assert.match(reader.stderr.toString(), /Permission denied/);
  });

  it("a data dir that is another user's and open to others", { skip: NEEDS_ROOT }, async () => {
    const theirs = join(root, 'theirs');
    await mkdir(theirs, { mode: 0o777 });
    await chmod(theirs, 0o777);
    // Writable by us, but not ours: its mode is not ours to change.
    const refusal = await refusedStart(
      { FILEHOST_DATA_DIR: theirs, HOME: root, TSX_DISABLE_CACHE: '1' },
      { uid: NOBODY, gid: NOBODY },
    );
    assertOneLine(refusal, /can be entered by other users \(mode 777\)/, 'FILEHOST_DATA_DIR');
  });

  it('a data dir that is a file', async () => {
    const file = join(root, 'a-file');
    await writeFile(file, 'x');
    assertOneLine(
      await refusedStart({ FILEHOST_DATA_DIR: file }),
      /not a directory/,
      'FILEHOST_DATA_DIR',
    );
  });

  it('a data dir on a read-only file system', { skip: NEEDS_ROOT }, async () => {
    const mount = join(root, 'read-only');
    await mkdir(mount);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=8m', 'tmpfs', mount]);
    try {
      assertOneLine(
        await refusedStart({ FILEHOST_DATA_DIR: mount }),
        /read-only file system/,
        'FILEHOST_DATA_DIR',
      );
    } finally {
      execFileSync('umount', [mount]);
    }
  });

  it('a data dir this user may not write', async () => {
    const locked = join(root, 'not-writable');
    await mkdir(locked, { mode: 0o755 });
    // Root may write anywhere, so as root the service runs as nobody for this one case.
    const as = IS_ROOT ? { uid: NOBODY, gid: NOBODY } : {};
    if (!IS_ROOT) await chmod(locked, 0o555);
    const refusal = await refusedStart(
      { FILEHOST_DATA_DIR: locked, HOME: root, TSX_DISABLE_CACHE: '1' },
      as,
    );
    assertOneLine(refusal, /not writable by this user/, 'FILEHOST_DATA_DIR');
  });

  it('a data dir on a full disk', { skip: NEEDS_ROOT }, async () => {
    const mount = join(root, 'full');
    await mkdir(mount);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount]);
    try {
      // Filled to the last block: the write fails with ENOSPC when the disk is full.
      await writeFile(join(mount, 'filler'), Buffer.alloc(1024 * 1024)).catch(() => {});
      assertOneLine(
        await refusedStart({ FILEHOST_DATA_DIR: mount }),
        /is full/,
        'FILEHOST_DATA_DIR',
      );
    } finally {
      execFileSync('umount', [mount]);
    }
  });

  it('a damaged database', async () => {
    const dir = join(root, 'corrupt');
    await mkdir(dir);
    await writeFile(join(dir, 'filehost.db'), Buffer.alloc(8192, 0x5a));
    assertOneLine(
      await refusedStart({ FILEHOST_DATA_DIR: dir }),
      /damaged or not a SQLite database/,
      'FILEHOST_DATA_DIR',
    );
  });

  it('a data dir in use by another service, and a port in use; a failed start keeps nothing', async () => {
    const dir = join(root, 'shared');
    const first = await spawnService({ FILEHOST_DATA_DIR: dir });
    try {
      assertOneLine(
        await refusedStart({ FILEHOST_DATA_DIR: dir }),
        /in use by another filehost service/,
        'FILEHOST_DATA_DIR',
      );
    } finally {
      first.process.kill('SIGKILL');
      await first.exited;
    }

    const { busy, port } = await occupiedPort();
    try {
      assertOneLine(
        await refusedStart({ FILEHOST_DATA_DIR: dir, FILEHOST_API_PORT: String(port) }),
        /already in use/,
        'FILEHOST_API_PORT',
      );
    } finally {
      busy.close();
    }
    // The refused start released the data dir it had locked: the next start works at once.
    const again = await spawnService({ FILEHOST_DATA_DIR: dir });
    again.process.kill('SIGTERM');
    assert.equal((await again.exited).code, 0);
  });

  it('the metrics port in use; a failed start keeps nothing', async () => {
    const dir = join(root, 'metrics-port');
    const { busy, port } = await occupiedPort();
    try {
      const refusal = await refusedStart({
        FILEHOST_DATA_DIR: dir,
        FILEHOST_METRICS_PORT: String(port),
      });
      assertOneLine(
        refusal,
        new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use`),
        'FILEHOST_METRICS_PORT',
      );
    } finally {
      busy.close();
    }
    // The API's and the CDN's ports, opened before, and the data dir were let go.
    const again = await spawnService({ FILEHOST_DATA_DIR: dir });
    again.process.kill('SIGTERM');
    assert.equal((await again.exited).code, 0);
  });

  it('a metrics host that is no address of this machine', async () => {
    assertOneLine(
      await refusedStart({
        FILEHOST_DATA_DIR: join(root, 'metrics-host'),
        FILEHOST_METRICS_PORT: '0',
        // TEST-NET-1 (RFC 5737): never an address of a test machine.
        FILEHOST_METRICS_HOST: '192.0.2.1',
      }),
      /cannot listen on 192\.0\.2\.1: no network interface/,
      'FILEHOST_METRICS_HOST',
    );
  });

  it('a database locked by another process', async () => {
    const dir = join(root, 'db-locked');
    const first = await spawnService({ FILEHOST_DATA_DIR: dir });
    first.process.kill('SIGTERM');
    await first.exited;
    // Another program (not a filehost) holds the database in exclusive mode.
    const script = `
      import Database from 'better-sqlite3';
      const db = new Database(process.argv[1]);
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
      console.log('held');
      setInterval(() => {}, 1000);
    `;
    const holder = spawn(
      process.execPath,
      ['--input-type=module', '-e', script, join(dir, 'filehost.db')],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => holder.stdout?.once('data', resolve));
    try {
      assertOneLine(
        await refusedStart({ FILEHOST_DATA_DIR: dir }),
        /locked by another process/,
        'FILEHOST_DATA_DIR',
      );
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
