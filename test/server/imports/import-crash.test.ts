import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EventListResponse } from '../../../src/api/events.js';
import type { FileListResponse, FileRecord, ImportResponse } from '../../../src/api/types.js';
import { type ChildService, json, spawnService, storedFiles } from '../../helpers/service.js';

const MiB = 1024 * 1024;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An import is fetched by the process that accepted it; killed with SIGKILL mid-import (or
 * with its bytes stored whole but its row not yet ready), that process leaves no ready
 * partial file: started again on the same data directory, it fails the import cleanly
 * (`import_failed`, `file.import_failed`), and nothing of its bytes remains.
 */
describe('crashes mid-import: kill -9 never leaves a ready partial file', () => {
  let dataDir: string;
  let service: ChildService | undefined;
  let remote: Server;
  let remoteUrl: string;
  const held = new Set<ServerResponse>();

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-import-crash-'));
    remote = createServer((request, response) => {
      if (request.url === '/half') {
        // Half of a declared 8 MiB, then nothing: the import is under way when it is killed.
        response.writeHead(200, { 'content-length': String(8 * MiB) });
        response.write(Buffer.alloc(4 * MiB, 5));
        held.add(response);
      } else {
        response.end(Buffer.alloc(MiB, 6));
      }
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  });

  after(async () => {
    service?.process.kill('SIGKILL');
    for (const response of held) response.destroy();
    remote.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function start(extra: Record<string, string> = {}): Promise<ChildService> {
    // The remote server listens on loopback: a private target, allowed here.
    service = await spawnService({
      FILEHOST_DATA_DIR: dataDir,
      FILEHOST_IMPORT_ALLOW_PRIVATE: 'true',
      ...extra,
    });
    return service;
  }

  async function kill(current: ChildService): Promise<void> {
    current.process.kill('SIGKILL');
    assert.equal((await current.exited).signal, 'SIGKILL');
  }

  const api = (s: ChildService, path: string, init: RequestInit = {}) =>
    fetch(`${s.apiUrl}${path}`, {
      ...init,
      headers: {
        Authorization: `Bearer ${s.secretKey}`,
        'Content-Type': 'application/json',
      },
    });

  const importFrom = async (s: ChildService, path: string) =>
    (
      await json<ImportResponse>(
        await api(s, '/v1/uploads/import', {
          method: 'POST',
          body: JSON.stringify({ url: `${remoteUrl}${path}` }),
        }),
        202,
      )
    ).file;

  async function failedCleanly(s: ChildService, id: string, before: string[]): Promise<void> {
    const record = await json<FileRecord>(await api(s, `/v1/files/${id}`));
    assert.equal(record.status, 'failed');
    assert.equal(record.importError?.code, 'import_failed');
    assert.equal((await fetch(`${s.cdnUrl}/${id}`)).status, 404);
    const page = await json<FileListResponse>(await api(s, '/v1/files?limit=100'));
    assert.ok(!page.files.some((file) => file.id === id), 'the failed import is not listed');
    assert.deepEqual(await storedFiles(dataDir), before, 'nothing of its bytes remains');
    const events = await json<EventListResponse>(await api(s, '/v1/events?limit=100'));
    assert.ok(
      events.events.some((event) => event.type === 'file.import_failed' && event.data.id === id),
    );
  }

  it('fails an import killed mid-body when the service starts again', async () => {
    const s = await start();
    const before = await storedFiles(dataDir);
    const file = await importFrom(s, '/half');
    // Under way: some bytes have arrived and been recorded.
    for (let tries = 0; ; tries++) {
      const record = await json<FileRecord>(await api(s, `/v1/files/${file.id}`));
      if ((record.importProgress?.receivedBytes ?? 0) > 0) break;
      assert.ok(tries < 100, 'the import never made progress');
      await delay(100);
    }
    await kill(s);
    const again = await start();
    await failedCleanly(again, file.id, before);
    await kill(again);
  });

  it('fails an import whose bytes were stored whole but whose row was not yet ready', async () => {
    const s = await start({ FILEHOST_CRASH_AT: 'import:stored' });
    const before = await storedFiles(dataDir);
    const file = await importFrom(s, '/whole');
    assert.equal((await s.exited).signal, 'SIGKILL');
    const again = await start();
    await failedCleanly(again, file.id, before);
    // The service imports as before.
    const next = await importFrom(again, '/whole');
    for (let tries = 0; ; tries++) {
      const record = await json<FileRecord>(await api(again, `/v1/files/${next.id}`));
      if (record.status === 'ready') break;
      assert.ok(tries < 100, 'the next import never became ready');
      await delay(100);
    }
    await kill(again);
  });
});
