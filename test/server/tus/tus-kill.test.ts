// @deployments embedded scale
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FileRecord } from '../../../src/api/types.js';
import { TUS_LEASE_MS } from '../../../src/server/uploads/tus-lease.js';
import { patternBytes } from '../../helpers/bytes.js';
import { freePort } from '../../helpers/ports.js';
import { scaleDeployment } from '../../helpers/scale.js';
import { SCALE } from '../../helpers/scale-mode.js';
import { ALLOWED_ORIGIN, type ChildService, json, spawnService } from '../../helpers/service.js';
import { tusUpload, tusUploadUntil } from '../../helpers/tus-client.js';

const MiB = 1024 * 1024;

/**
 * The service, a real process, is killed with SIGKILL while a tus PATCH streams into it, then
 * started again on the same stores: tus-js-client resumes from HEAD's offset, which is never
 * less than what HEAD said before the kill, and the file ends with the right bytes.
 */
describe('tus: resume after kill -9 of the service', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: ChildService | undefined;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-tus-kill-'));
    env = {
      FILEHOST_DATA_DIR: dataDir,
      FILEHOST_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
      // The same port after the restart: the upload URL names it.
      FILEHOST_API_PORT: String(await freePort()),
      FILEHOST_CDN_PORT: String(await freePort()),
      ...(SCALE ? (await scaleDeployment([ALLOWED_ORIGIN])).env : {}),
    };
  });
  after(async () => {
    service?.process.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('continues from what HEAD reported, and ends with the right bytes', async () => {
    // Large enough that the PATCHes after the 10 MiB mark cannot all end within the 100 ms
    // before the kill (with 23 MiB, a quiet machine sent the rest before it: no PATCH cut).
    const bytes = Buffer.from(patternBytes(64 * MiB + 11));
    service = await spawnService(env);
    const first = service;
    const headers = { Authorization: `Bearer ${first.secretKey}` };
    const offsetOf = async (url: string) => {
      const response = await fetch(url, {
        method: 'HEAD',
        headers: { ...headers, 'Tus-Resumable': '1.0.0' },
      });
      assert.equal(response.status, 200);
      return Number(response.headers.get('upload-offset'));
    };
    let reported = 0;
    const { url } = await tusUploadUntil(
      bytes,
      { endpoint: `${first.apiUrl}/v1/tus`, chunkSize: 5 * MiB, headers },
      10 * MiB,
      async (upload) => {
        reported = await offsetOf(upload.url as string);
        // The next PATCH is on its way: the kill cuts it.
        await new Promise((resolve) => setTimeout(resolve, 100));
        first.process.kill('SIGKILL');
        assert.equal((await first.exited).signal, 'SIGKILL');
      },
    );
    assert.ok(reported >= 10 * MiB, `HEAD said ${reported}`);

    service = await spawnService(env);
    assert.ok((await offsetOf(url)) >= reported, 'nothing HEAD reported was lost');
    // The killed PATCH's lease runs out within TUS_LEASE_MS of its last renewal;
    // tus-js-client retries its 409 until then, every quarter second here.
    const resumed = performance.now();
    let waited = Number.POSITIVE_INFINITY;
    const outcome = await tusUpload(bytes, {
      uploadUrl: url,
      chunkSize: 5 * MiB,
      headers,
      retryDelays: Array.from({ length: 160 }, () => 250),
      onChunkComplete: () => {
        waited = Math.min(waited, performance.now() - resumed);
      },
    });
    assert.ok(outcome.fileId, outcome.body);
    // Not a benchmark: far over the lease, far under the 20 s the lease used to last.
    assert.ok(waited < TUS_LEASE_MS + 7_000, `the first resumed chunk came after ${waited} ms`);
    const record = await json<FileRecord>(
      await fetch(`${service.apiUrl}/v1/files/${outcome.fileId}`, { headers }),
    );
    assert.equal(record.status, 'ready');
    const served = Buffer.from(await (await fetch(record.url as string)).arrayBuffer());
    assert.ok(served.equals(bytes), 'the file holds exactly the bytes sent');
  });

  it('finishes an upload whose last byte arrived just before the kill, when the client comes back', async () => {
    const bytes = Buffer.from(patternBytes(6 * MiB + 5, 3));
    // The test before leaves its service running on the same data directory.
    if (service && service.process.exitCode === null && service.process.signalCode === null) {
      service.process.kill('SIGKILL');
      await service.exited;
    }
    // Killed after the last byte is recorded, before the upload is finished.
    service = await spawnService({ ...env, FILEHOST_CRASH_AT: 'tus:last-byte' });
    const first = service;
    const headers = { Authorization: `Bearer ${first.secretKey}` };
    const tus = { ...headers, 'Tus-Resumable': '1.0.0' };
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const created = await fetch(`${first.apiUrl}/v1/tus`, {
      method: 'POST',
      headers: {
        ...tus,
        'Upload-Length': String(bytes.length),
        'Upload-Metadata': `filename ${b64('whole.bin')},filetype ${b64('application/octet-stream')}`,
      },
    });
    assert.equal(created.status, 201, await created.text());
    const url = created.headers.get('location') as string;
    // Every byte in one PATCH: the service dies before it answers.
    await assert.rejects(
      fetch(url, {
        method: 'PATCH',
        headers: {
          ...tus,
          'Content-Type': 'application/offset+octet-stream',
          'Upload-Offset': '0',
        },
        body: bytes,
      }),
    );
    assert.equal((await first.exited).signal, 'SIGKILL', 'killed at the crash point');

    service = await spawnService(env);
    // tus-js-client resumes: HEAD says every byte is there, so it sends no PATCH; the
    // service finishes the upload then, and names the file on that HEAD.
    const outcome = await tusUpload(bytes, { uploadUrl: url, chunkSize: 8 * MiB, headers });
    assert.ok(outcome.fileId, outcome.body);
    const record = await json<FileRecord>(
      await fetch(`${service.apiUrl}/v1/files/${outcome.fileId}`, { headers }),
    );
    assert.equal(record.status, 'ready');
    const served = Buffer.from(await (await fetch(record.url as string)).arrayBuffer());
    assert.ok(served.equals(bytes), 'the file holds exactly the bytes sent');
  });
});
