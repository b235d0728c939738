import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import {
  ClamdScanner,
  parseClamdAddress,
  ScannerUnavailableError,
} from '../../../src/server/ingest/clamd.js';
import {
  EICAR,
  EICAR_SIGNATURE,
  MARKER,
  MARKER_SIGNATURE,
  startClamd,
  type TestClamd,
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

const clamd = await startClamd();

describe('ClamdScanner with a real clamd', { skip: 'skip' in clamd ? clamd.skip : false }, () => {
  const daemon = clamd as TestClamd;
  after(() => daemon.stop());

  for (const via of ['unix socket', 'tcp'] as const) {
    it(`gives clamd's verdict over a ${via}`, async () => {
      const scanner = new ClamdScanner(
        parseClamdAddress(via === 'tcp' ? daemon.tcp : daemon.socket),
        {
          timeoutMs: 5000,
        },
      );
      assert.deepEqual(await scanner.scan(Readable.from([EICAR])), {
        infected: true,
        signature: EICAR_SIGNATURE,
      });
      // The signature split across chunks (and frames) deep in 3 MB is still found.
      const big = Buffer.alloc(3_000_000, 7);
      MARKER.copy(big, 2_999_950);
      const chunks = [big.subarray(0, 2_999_990), big.subarray(2_999_990)];
      assert.deepEqual(await scanner.scan(Readable.from(chunks)), {
        infected: true,
        signature: MARKER_SIGNATURE,
      });
      assert.deepEqual(await scanner.scan(Readable.from([Buffer.from('hello')])), {
        infected: false,
      });
    });
  }

  it("reports the source's own failure, not the scanner's", async () => {
    const scanner = new ClamdScanner(parseClamdAddress(daemon.socket), { timeoutMs: 5000 });
    const failing = new Error('the bucket went away');
    async function* source() {
      yield Buffer.alloc(100_000);
      throw failing;
    }
    await assert.rejects(scanner.scan(source()), (error) => error === failing);
  });

  it('is unavailable when nothing listens', async () => {
    const scanner = new ClamdScanner(parseClamdAddress(`${daemon.dir}/nothing.sock`), {
      timeoutMs: 1000,
    });
    await assert.rejects(scanner.scan(Readable.from([EICAR])), ScannerUnavailableError);
  });
});
