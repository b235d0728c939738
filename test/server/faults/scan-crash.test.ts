// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FileListResponse, FileRecord, SignResponse } from '../../../src/api/types.js';
import { startClamd, type TestClamd } from '../../helpers/clamd.js';
import { scaleDeployment } from '../../helpers/scale.js';
import { SCALE } from '../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  type ChildService,
  json,
  partAccepted,
  patternBytes,
  spawnService,
} from '../../helpers/service.js';
import { partSlice } from '../../helpers/signed-parts.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;
const clamd = await startClamd();

/**
 * The service, a real process, is killed with SIGKILL while clamd holds a scan (clamd is
 * stopped with SIGSTOP, so the scan is surely under way), then started again on the same
 * stores: nothing is lost, and no file is ready unscanned.
 */
describe('crashes: kill -9 of the service mid-scan', {
  skip: 'skip' in clamd ? clamd.skip : false,
}, () => {
  const daemon = clamd as TestClamd;
  let dataDir: string;
  let env: Record<string, string>;
  let service: ChildService | undefined;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-scan-crash-'));
    env = {
      FILEHOST_DATA_DIR: dataDir,
      FILEHOST_PART_SIZE: String(PART),
      FILEHOST_CLAMD: daemon.socket,
      FILEHOST_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
      ...(SCALE ? (await scaleDeployment([ALLOWED_ORIGIN])).env : {}),
    };
  });
  after(async () => {
    service?.process.kill('SIGKILL');
    await daemon.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    service = await spawnService(env);
    return service;
  };
  const auth = (s: ChildService) => ({ Authorization: `Bearer ${s.secretKey}` });
  const record = async (s: ChildService, id: string) =>
    json<FileRecord>(await fetch(`${s.apiUrl}/v1/files/${id}`, { headers: auth(s) }));

  async function killMidScan(s: ChildService, request: Promise<Response>): Promise<void> {
    // Settled as soon as it is: a request cut by the kill must not reject unheard.
    const outcome = request.then(
      (response) => `answered ${response.status}`,
      () => 'cut',
    );
    daemon.pause();
    try {
      await new Promise((resolve) => setTimeout(resolve, 700));
      s.process.kill('SIGKILL');
      assert.equal((await s.exited).signal, 'SIGKILL');
      assert.equal(await outcome, 'cut');
    } finally {
      daemon.resume();
    }
  }

  it('leaves a completing upload pending, and completes it after the restart', async () => {
    const s = await start();
    const bytes = patternBytes(3 * PART + 99, 21);
    const signed = await json<SignResponse>(
      await fetch(`${s.apiUrl}/v1/uploads/sign`, {
        method: 'POST',
        headers: { ...auth(s), 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'big.bin', size: bytes.length }),
      }),
      201,
    );
    for (const part of signed.parts) {
      const body = partSlice(bytes, signed, part.partNumber);
      await partAccepted(
        await fetch(part.url, { method: 'PUT', headers: part.headers, body }),
        part,
      );
    }
    const complete = () =>
      fetch(`${s.apiUrl}/v1/uploads/${signed.id}/complete`, { method: 'POST', headers: auth(s) });
    await killMidScan(s, complete());

    const again = await start();
    const pending = await record(again, signed.id);
    assert.equal(pending.status, 'pending');
    assert.equal(pending.scannedAt, null);
    assert.equal((await fetch(`${again.cdnUrl}/${signed.id}`)).status, 404);
    const ready = await json<FileRecord>(
      await fetch(`${again.apiUrl}/v1/uploads/${signed.id}/complete`, {
        method: 'POST',
        headers: auth(again),
      }),
    );
    assert.equal(ready.status, 'ready');
    assert.ok(ready.scannedAt);
    assertSameBytes(await (await fetch(`${again.cdnUrl}/${signed.id}`)).arrayBuffer(), bytes);
    again.process.kill('SIGKILL');
    await again.exited;
  });

  it('keeps nothing of a one-request upload killed mid-scan', async () => {
    const s = await start();
    const listed = async (c: ChildService) =>
      (
        await json<FileListResponse>(
          await fetch(`${c.apiUrl}/v1/files?limit=100`, { headers: auth(c) }),
        )
      ).files.map((file) => [file.id, file.status]);
    const before = await listed(s);
    await killMidScan(
      s,
      fetch(`${s.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: { ...auth(s), 'X-Filename': 'one.bin' },
        body: patternBytes(8 * MiB, 22),
      }),
    );
    const again = await start();
    assert.deepEqual(await listed(again), before);
    again.process.kill('SIGKILL');
    await again.exited;
  });
});
