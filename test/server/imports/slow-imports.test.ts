// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import type { Server, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { FileRecord, ImportResponse, Usage } from '../../../src/api/types.js';
import { PUBLIC_STAND_IN, serveRemote } from '../../helpers/remote-server.js';
import { json, startTestService, type TestService } from '../../helpers/service.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A real remote server that sends `chunkBytes` every `everyMs`, for ever (until the
 * service hangs up or the test ends).
 */
async function drippingServer(open: Set<ServerResponse>): Promise<{ url: string; server: Server }> {
  return serveRemote(PUBLIC_STAND_IN, (request, response) => {
    const [, chunkText, everyText] = /^\/drip\/(\d+)\/(\d+)$/.exec(request.url ?? '') ?? [];
    if (!chunkText || !everyText) {
      response.writeHead(404).end();
      return;
    }
    open.add(response);
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(Number(chunkText), 7);
    response.write(chunk);
    const timer = setInterval(() => response.write(chunk), Number(everyText));
    response.on('close', () => clearInterval(timer));
  });
}

async function startImport(t: TestService, url: string): Promise<string> {
  const { file } = await json<ImportResponse>(
    await t.api('/v1/uploads/import', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url }),
    }),
    202,
  );
  return file.id;
}

/** Polls the record until the import has ended; answers it and how long that took. */
async function settle(
  t: TestService,
  id: string,
  timeoutMs: number,
): Promise<{ record: FileRecord; tookMs: number }> {
  const started = Date.now();
  for (;;) {
    const record = await json<FileRecord>(await t.api(`/v1/files/${id}`));
    if (record.status !== 'pending') return { record, tookMs: Date.now() - started };
    assert.ok(Date.now() - started < timeoutMs, `import ${id} still pending`);
    await delay(200);
  }
}

const usage = async (t: TestService) => json<Usage>(await t.api('/v1/usage'));

/**
 * decisions.md, "Slow senders hold nothing": an import that brings fewer than 16 KiB in any
 * 30 s, or runs past `FILEHOST_IMPORT_MAX_SECONDS`, fails with `import_timeout` and gives its
 * reservation back.
 */
describe('slow imports hold nothing', () => {
  const open = new Set<ServerResponse>();
  let remote: { url: string; server: Server };
  let t: TestService;
  let fast: TestService;

  before(async () => {
    remote = await drippingServer(open);
    const target = { importTargetForTests: { treatAsPublic: [PUBLIC_STAND_IN] } };
    // The defaults: a 30-s window, 600 s at most.
    t = await startTestService({}, target);
    fast = await startTestService({ FILEHOST_IMPORT_MAX_SECONDS: '3' }, target);
  });
  after(async () => {
    for (const response of open) response.destroy();
    await Promise.all([t.close(), fast.close()]);
    remote.server.close();
  });

  it('fails an import that drips 1 KiB every 2 s after the 30-s window, and gives its room back', async () => {
    const before = await usage(t);
    const id = await startImport(t, `${remote.url}/drip/1024/2000`);
    await delay(1000);
    const during = await usage(t);
    assert.equal(during.pendingUploads, before.pendingUploads + 1, 'the import holds a place');
    const { record, tookMs } = await settle(t, id, 90_000);
    assert.equal(record.status, 'failed', JSON.stringify(record));
    assert.equal(record.importError?.code, 'import_timeout');
    assert.match(record.importError?.message ?? '', /less than 16 KiB in 30 s/);
    assert.ok(tookMs >= 27_000 && tookMs < 60_000, `failed after ${tookMs} ms`);
    const afterwards = await usage(t);
    assert.equal(afterwards.pendingUploads, before.pendingUploads);
    assert.equal(afterwards.pendingBytes, before.pendingBytes);
  });

  it('fails an import past FILEHOST_IMPORT_MAX_SECONDS however fast it goes (17 KiB every 4 s, 64 KiB every 100 ms)', async () => {
    for (const path of ['/drip/17408/4000', '/drip/65536/100']) {
      const before = await usage(fast);
      const id = await startImport(fast, `${remote.url}${path}`);
      const { record, tookMs } = await settle(fast, id, 30_000);
      assert.equal(record.status, 'failed', `${path}: ${JSON.stringify(record)}`);
      assert.equal(record.importError?.code, 'import_timeout', path);
      assert.match(record.importError?.message ?? '', /took longer than 3 s/);
      assert.ok(tookMs >= 2500 && tookMs < 20_000, `${path}: failed after ${tookMs} ms`);
      const afterwards = await usage(fast);
      assert.equal(afterwards.pendingUploads, before.pendingUploads);
      assert.equal(afterwards.pendingBytes, before.pendingBytes);
    }
  });
});
