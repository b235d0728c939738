// @deployments embedded scale
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ImportProgress } from '../../src/api/types.js';
import { ApiError, FilehostClient } from '../../src/client/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** Tells `importFromUrl` apart by what it resolves or rejects with, against a real service. */
describe('the typed client: importFromUrl', () => {
  let t: TestService;
  let remote: Server;
  let remoteUrl: string;
  let client: FilehostClient;
  const held = new Set<ServerResponse>();

  before(async () => {
    remote = createServer((request, response) => {
      if (request.url === '/file.txt') {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '32768' });
        response.write(Buffer.alloc(16384, 97));
        setTimeout(() => response.end(Buffer.alloc(16384, 97)), 1500);
      } else if (request.url === '/held') {
        response.writeHead(200);
        response.write('x');
        held.add(response);
      } else {
        response.writeHead(410).end('gone');
      }
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    // Private targets allowed: the remote server is on loopback.
    t = await startTestService({ FILEHOST_IMPORT_ALLOW_PRIVATE: 'true' });
    client = new FilehostClient({ endpoint: t.apiUrl, apiKey: t.secretKey });
  });

  after(async () => {
    for (const response of held) response.destroy();
    await t.close();
    remote.close();
  });

  it('resolves with the ready record, telling progress on the way', async () => {
    const seen: ImportProgress[] = [];
    const file = await client.importFromUrl(`${remoteUrl}/file.txt`, {
      metadata: { user: 'u1' },
      pollIntervalMs: 200,
      onProgress: (progress) => seen.push(progress),
    });
    assert.equal(file.status, 'ready');
    assert.equal(file.name, 'file.txt');
    assert.equal(file.size, 32768);
    assert.deepEqual(file.metadata, { user: 'u1' });
    assert.ok(
      seen.some((progress) => progress.receivedBytes === 16384 && progress.totalBytes === 32768),
      JSON.stringify(seen),
    );
  });

  it('rejects with the import code as an ApiError when the import fails', async () => {
    await assert.rejects(
      client.importFromUrl(`${remoteUrl}/missing`, { pollIntervalMs: 100 }),
      (error: unknown) =>
        error instanceof ApiError &&
        error.code === 'import_http_error' &&
        error.details.remoteStatus === 410,
    );
    await assert.rejects(
      client.importFromUrl('ftp://example.com/x'),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_request',
    );
  });

  it('imports and follows with an upload token alone: progress, the ready record, the failure', async () => {
    const { token } = await client.createUploadToken({ metadata: { user: 'u9' } });
    const holder = new FilehostClient({ endpoint: t.apiUrl, uploadToken: token });
    const seen: ImportProgress[] = [];
    const file = await holder.importFromUrl(`${remoteUrl}/file.txt`, {
      pollIntervalMs: 200,
      onProgress: (progress) => seen.push(progress),
    });
    assert.equal(file.status, 'ready');
    assert.equal(file.size, 32768);
    assert.deepEqual(file.metadata, { user: 'u9' });
    assert.ok(
      seen.some((progress) => progress.receivedBytes === 16384 && progress.totalBytes === 32768),
      JSON.stringify(seen),
    );
    // The token may not read files: the record came by the import's own state.
    await assert.rejects(
      holder.getFile(file.id),
      (error: unknown) => error instanceof ApiError && error.code === 'token_scope',
    );
    await assert.rejects(
      holder.importFromUrl(`${remoteUrl}/missing`, { pollIntervalMs: 100 }),
      (error: unknown) =>
        error instanceof ApiError &&
        error.code === 'import_http_error' &&
        error.details.remoteStatus === 410,
    );
  });

  it('imports with a tokenProvider alone, asking it once', async () => {
    let asked = 0;
    const holder = new FilehostClient({
      endpoint: t.apiUrl,
      tokenProvider: async () => {
        asked += 1;
        return client.createUploadToken({ maxFiles: 1 });
      },
    });
    const file = await holder.importFromUrl(`${remoteUrl}/file.txt`, { pollIntervalMs: 200 });
    assert.equal(file.status, 'ready');
    assert.equal(asked, 1);
  });

  it('stops waiting when its signal aborts', async () => {
    const controller = new AbortController();
    const waiting = client.importFromUrl(`${remoteUrl}/held`, {
      pollIntervalMs: 100,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 500);
    await assert.rejects(waiting, (error: unknown) => (error as Error).name === 'AbortError');
  });

  it('stops at once when its signal aborted as an answer arrived (before the wait for the next look)', {
    timeout: 20_000,
  }, async () => {
    const controller = new AbortController();
    // The start's answer read whole, then the signal aborted before the client sees it: the
    // wait for the next look begins on a signal aborted already (which never fires again).
    const stopping = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.secretKey,
      fetch: async (input, init) => {
        const answer = await fetch(input, init);
        const body = await answer.text();
        if (init?.method === 'POST') controller.abort();
        return new Response(body, { status: answer.status, headers: answer.headers });
      },
    });
    await assert.rejects(
      stopping.importFromUrl(`${remoteUrl}/held`, {
        // Far longer than the test's own timeout: only a stop that does not wait for it passes.
        pollIntervalMs: 600_000,
        signal: controller.signal,
      }),
      (error: unknown) => (error as Error).name === 'AbortError',
    );
  });
});
