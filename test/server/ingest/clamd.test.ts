import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import {
  ClamdScanner,
  parseClamdAddress,
  ScannerUnavailableError,
} from '../../../src/server/ingest/clamd.js';
import { verdictOf } from '../../../src/server/ingest/clamd-session.js';
import {
  CLAMD_MAX_SCAN_BYTES,
  EICAR,
  EICAR_SIGNATURE,
  MARKER,
  MARKER_SIGNATURE,
  startClamd,
  type TestClamd,
  zerosGzip,
} from '../../helpers/clamd.js';

describe('parseClamdAddress', () => {
  it('takes tcp://host:port and socket paths, and refuses anything else', () => {
    assert.deepEqual(parseClamdAddress('tcp://127.0.0.1:3310'), { host: '127.0.0.1', port: 3310 });
    assert.deepEqual(parseClamdAddress('tcp://[::1]:3310'), { host: '::1', port: 3310 });
    assert.deepEqual(parseClamdAddress('/run/clamav/clamd.ctl'), { path: '/run/clamav/clamd.ctl' });
    assert.deepEqual(parseClamdAddress('unix:///tmp/c.sock'), { path: '/tmp/c.sock' });
    for (const bad of [
      'tcp://host',
      'tcp://:3310',
      'tcp://h:0',
      'tcp://h:1/x',
      'clamd.sock',
      'http://h:1',
    ]) {
      assert.throws(() => parseClamdAddress(bad), TypeError, bad);
    }
  });
});

describe("clamd's answers", () => {
  it('tells a limit clamd stopped at from a signature it found', () => {
    assert.deepEqual(verdictOf('stream: OK'), { outcome: 'clean' });
    assert.deepEqual(verdictOf('stream: Eicar-Test-Signature FOUND'), {
      outcome: 'infected',
      signature: 'Eicar-Test-Signature',
    });
    for (const limit of ['MaxScanSize', 'MaxFileSize', 'MaxRecursion', 'MaxFiles', 'MaxScanTime']) {
      assert.deepEqual(verdictOf(`stream: Heuristics.Limits.Exceeded.${limit} FOUND`), {
        outcome: 'unscannable',
        reason: `Heuristics.Limits.Exceeded.${limit}`,
      });
    }
    // A signature that merely starts alike is a signature.
    assert.equal(verdictOf('stream: Heuristics.Limits.ExceededX FOUND').outcome, 'infected');
    assert.equal(verdictOf('stream: Heuristics.Phishing.Email FOUND').outcome, 'infected');
    assert.throws(() => verdictOf('INSTREAM size limit exceeded. ERROR'), ScannerUnavailableError);
  });
});

const clamd = await startClamd();

const OPTIONS = { silenceMs: 5000, verdictMs: 30_000, concurrency: 8 };

/** A scan in a turn of its own (the turns are `FairTurns`' business, tested there). */
function scan(scanner: ClamdScanner, source: Readable | AsyncIterable<Buffer>) {
  return scanner.scan({ key: 'test', perKey: Number.POSITIVE_INFINITY }, async () => source);
}

describe('ClamdScanner with a real clamd', { skip: 'skip' in clamd ? clamd.skip : false }, () => {
  const daemon = clamd as TestClamd;
  after(() => daemon.stop());

  for (const via of ['unix socket', 'tcp'] as const) {
    it(`gives clamd's verdict over a ${via}`, async () => {
      const scanner = new ClamdScanner(
        parseClamdAddress(via === 'tcp' ? daemon.tcp : daemon.socket),
        OPTIONS,
      );
      assert.deepEqual(await scan(scanner, Readable.from([EICAR])), {
        outcome: 'infected',
        signature: EICAR_SIGNATURE,
      });
      // The signature split across chunks (and frames) deep in 3 MB is still found.
      const big = Buffer.alloc(3_000_000, 7);
      MARKER.copy(big, 2_999_950);
      const chunks = [big.subarray(0, 2_999_990), big.subarray(2_999_990)];
      assert.deepEqual(await scan(scanner, Readable.from(chunks)), {
        outcome: 'infected',
        signature: MARKER_SIGNATURE,
      });
      assert.deepEqual(await scan(scanner, Readable.from([Buffer.from('hello')])), {
        outcome: 'clean',
      });
    });
  }

  it("reports the source's own failure, not the scanner's", async () => {
    const scanner = new ClamdScanner(parseClamdAddress(daemon.socket), OPTIONS);
    const failing = new Error('the bucket went away');
    async function* source() {
      yield Buffer.alloc(100_000);
      throw failing;
    }
    await assert.rejects(scan(scanner, source()), (error) => error === failing);
  });

  it('keeps its connections for the next scans, one per scan under way, and closes them', async () => {
    // A new daemon: no session of an earlier test's scanner is open on it (or closing).
    await daemon.kill();
    await daemon.start();
    const scanner = new ClamdScanner(parseClamdAddress(daemon.socket), OPTIONS);
    const before = clientSockets(daemon.pid());
    for (let i = 0; i < 20; i++) {
      assert.deepEqual(await scan(scanner, Readable.from([Buffer.from(`clean ${i}`)])), {
        outcome: 'clean',
      });
    }
    // Twenty scans one after another: one session, still open on clamd's side.
    assert.equal(clientSockets(daemon.pid()) - before, 1);
    const verdicts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        scan(scanner, Readable.from([i === 3 ? EICAR : Buffer.alloc(30_000, i)])),
      ),
    );
    assert.deepEqual(
      verdicts.map((verdict) => verdict.outcome === 'infected'),
      [false, false, false, true, false, false],
    );
    const open = clientSockets(daemon.pid()) - before;
    assert.ok(open >= 1 && open <= 6, `${open} sessions for six scans at once`);
    // Every kept session still answers in turn (replies are numbered per session).
    for (let i = 0; i < 12; i++) {
      const verdict = await scan(scanner, Readable.from([i % 4 === 0 ? EICAR : Buffer.from('x')]));
      assert.equal(verdict.outcome === 'infected', i % 4 === 0);
    }
    scanner.close();
    await until(() => clientSockets(daemon.pid()) === before, 'clamd saw the sessions end');
  });

  it('goes on after a scan that failed mid-stream: that session is dropped, not reused', async () => {
    const scanner = new ClamdScanner(parseClamdAddress(daemon.socket), OPTIONS);
    await scan(scanner, Readable.from([Buffer.from('warm')]));
    async function* failing() {
      yield Buffer.alloc(70_000, 1);
      throw new Error('the client went away');
    }
    await assert.rejects(scan(scanner, failing()), /the client went away/);
    // Had the half-sent stream's session been kept, these bytes would end up in its stream.
    assert.deepEqual(await scan(scanner, Readable.from([EICAR])), {
      outcome: 'infected',
      signature: EICAR_SIGNATURE,
    });
    assert.deepEqual(await scan(scanner, Readable.from([Buffer.from('clean')])), {
      outcome: 'clean',
    });
    scanner.close();
  });

  it('says when a kept session was already closed by clamd, and opens new ones once it is back', async () => {
    const scanner = new ClamdScanner(parseClamdAddress(daemon.socket), OPTIONS);
    await scan(scanner, Readable.from([Buffer.from('kept')]));
    // Killed, and the scan asked for before this process has seen the kept connection close:
    // the moment a restart (or clamd's idle timeout) races a scan taking that connection.
    killNow(daemon.pid());
    const scanned = scan(scanner, Readable.from([Buffer.from('after the kill')]));
    await assert.rejects(
      scanned,
      (error) => error instanceof ScannerUnavailableError && error.staleConnection,
    );
    await daemon.start();
    assert.deepEqual(await scan(scanner, Readable.from([EICAR])), {
      outcome: 'infected',
      signature: EICAR_SIGNATURE,
    });
    // Restarted while a session was idle: that one is dropped as clamd closes it.
    await daemon.kill();
    await daemon.start();
    assert.deepEqual(await scan(scanner, Readable.from([Buffer.from('clean')])), {
      outcome: 'clean',
    });
    scanner.close();
  });

  it('answers unscannable for an archive that inflates past MaxScanSize', async () => {
    const scanner = new ClamdScanner(parseClamdAddress(daemon.socket), OPTIONS);
    const bomb = await zerosGzip(CLAMD_MAX_SCAN_BYTES + 50 * 1024 * 1024);
    assert.deepEqual(await scan(scanner, Readable.from([bomb])), {
      outcome: 'unscannable',
      reason: 'Heuristics.Limits.Exceeded.MaxScanSize',
    });
    scanner.close();
  });

  it('answers unscannable when clamd has every byte and no verdict comes in time; unavailable when it takes no bytes', async () => {
    // Paused before the last byte is sent, the scan cannot finish in any time.
    const scanner = new ClamdScanner(parseClamdAddress(daemon.socket), {
      ...OPTIONS,
      silenceMs: 1000,
      verdictMs: 300,
    });
    await scan(scanner, Readable.from([Buffer.from('warm')]));
    async function* pausedAtTheEnd() {
      yield Buffer.from('a small file');
      daemon.pause();
    }
    const started = performance.now();
    try {
      const verdict = await scan(scanner, pausedAtTheEnd());
      assert.equal(verdict.outcome, 'unscannable');
      assert.match(
        verdict.outcome === 'unscannable' ? verdict.reason : '',
        /no verdict within 300 ms/,
      );
      assert.ok(
        performance.now() - started < 900,
        'cut by the verdict timeout, not the silence one',
      );
    } finally {
      daemon.resume();
    }
    // Paused before it takes the bytes (more than the socket holds): the daemon's fault.
    daemon.pause();
    try {
      await assert.rejects(
        scan(scanner, Readable.from([Buffer.alloc(8 * 1024 * 1024, 1)])),
        ScannerUnavailableError,
      );
    } finally {
      daemon.resume();
    }
    assert.deepEqual(await scan(scanner, Readable.from([EICAR])), {
      outcome: 'infected',
      signature: EICAR_SIGNATURE,
    });
    scanner.close();
  });

  it('runs at most `concurrency` scans at once; scanIfFree never overtakes a waiting one', async () => {
    const scanner = new ClamdScanner(parseClamdAddress(daemon.socket), {
      ...OPTIONS,
      concurrency: 1,
    });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* heldOpen() {
      yield Buffer.from('first');
      await held;
    }
    const first = scan(scanner, heldOpen());
    const second = scan(scanner, Readable.from([EICAR]));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(scanner.load, { running: 1, waiting: 1 });
    const turn = { key: 'other', perKey: 2 };
    assert.equal(scanner.scanIfFree(turn, Readable.from([Buffer.from('x')])), null);
    release();
    assert.deepEqual(await first, { outcome: 'clean' });
    assert.equal((await second).outcome, 'infected');
    const free = scanner.scanIfFree(turn, Readable.from([Buffer.from('x')]));
    assert.ok(free);
    assert.deepEqual(await free, { outcome: 'clean' });
    scanner.close();
  });

  it('is unavailable when nothing listens', async () => {
    const scanner = new ClamdScanner(parseClamdAddress(`${daemon.dir}/nothing.sock`), {
      ...OPTIONS,
      silenceMs: 1000,
    });
    await assert.rejects(scan(scanner, Readable.from([EICAR])), ScannerUnavailableError);
  });
});

/** Connected unix and TCP sockets a process holds, its listening ones aside (those do not change). */
function clientSockets(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
}

/** SIGKILL, waiting (blocking this thread) until the process is gone, before any event is handled. */
function killNow(pid: number): void {
  process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + 5000;
  for (;;) {
    let state = 'gone';
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] ?? 'gone';
    } catch {
      // Reaped already.
    }
    if (state === 'gone' || state === 'Z' || state === 'X') return;
    if (Date.now() > deadline) throw new Error(`clamd ${pid} did not die`);
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
