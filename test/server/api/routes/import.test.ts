// @deployments embedded scale
import assert from 'node:assert/strict';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { EventListResponse } from '../../../../src/api/events.js';
import type {
  FileListResponse,
  FileRecord,
  ImportResponse,
  Usage,
} from '../../../../src/api/types.js';
import { bytesOfType } from '../../../helpers/bytes.js';
import { PUBLIC_STAND_IN, serveRemote } from '../../../helpers/remote-server.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';

// A whole 1x1 PNG (and bytes after it): damaged image metadata is refused at ingest.
const PNG = Buffer.from(bytesOfType('image/png', 264));

/** Made once: made per request, it kept the remote server from answering within 1 s. */
const GZIP_BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024));

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What `/slow` declares, and sends a step at a time until the test has seen progress. */
const SLOW_TOTAL = 1024 * 1024;
const SLOW_STEP = 32 * 1024;

describe('POST /v1/uploads/import: the service fetches a file safely', () => {
  let t: TestService;
  let remote: { url: string; server: Server };
  let inside: { url: string; server: Server };
  let insidePort: number;
  /** Bodies held open by the slow routes, released at the end. */
  const open = new Set<ServerResponse>();
  /** Sends the rest of the latest `/slow` body at once. */
  let finishSlow = () => {};

  before(async () => {
    inside = await serveRemote('127.0.0.1', (_request, response) =>
      response.end('internal secret'),
    );
    insidePort = (inside.server.address() as AddressInfo).port;
    remote = await serveRemote(PUBLIC_STAND_IN, (request, response, socket) => {
      const path = request.url ?? '/';
      if (path === '/cat.bin') {
        // A PNG sent as something else: the bytes decide.
        response.setHeader('content-type', 'application/octet-stream');
        response.end(PNG);
      } else if (path === '/named') {
        response.setHeader(
          'content-disposition',
          `attachment; filename*=UTF-8''K%C3%A4se%20%E2%80%AEgpj.txt`,
        );
        response.setHeader('content-type', 'text/plain');
        response.end('cheese');
      } else if (path === '/page.html') {
        response.setHeader('content-type', 'text/html');
        response.end('<!doctype html><script>alert(1)</script>');
      } else if (path === '/to-inside') {
        response.writeHead(302, { location: `${inside.url}/` }).end();
      } else if (path === '/to-localhost') {
        response.writeHead(301, { location: `http://localhost:${insidePort}/` }).end();
      } else if (path === '/to-metadata') {
        response.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (path === '/to-ipv6-loopback') {
        response.writeHead(308, { location: `http://[::ffff:7f00:1]:${insidePort}/` }).end();
      } else if (path === '/to-file') {
        response.writeHead(302, { location: 'file:///etc/passwd' }).end();
      } else if (path === '/loop') {
        response.writeHead(302, { location: '/loop' }).end();
      } else if (path.startsWith('/hop/')) {
        const left = Number(path.slice('/hop/'.length));
        response.writeHead(302, { location: left > 0 ? `/hop/${left - 1}` : '/cat.bin' }).end();
      } else if (path === '/missing') {
        response.writeHead(404).end('no');
      } else if (path === '/huge-declared') {
        response.writeHead(200, { 'content-length': String(10 * 1024 ** 3) });
        response.write(Buffer.alloc(1024));
        open.add(response);
      } else if (path === '/endless') {
        const chunk = Buffer.alloc(64 * 1024, 1);
        const more = () => {
          while (!response.destroyed && response.write(chunk)) {
            // Writes until the socket pushes back.
          }
          if (!response.destroyed) response.once('drain', more);
        };
        more();
      } else if (path === '/more-than-declared') {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n0123456789EXTRA-BYTES-AFTER-THE-BODY',
        );
      } else if (path === '/less-than-declared') {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly twenty bytes...');
        setTimeout(() => socket.destroy(), 50);
      } else if (path === '/silent') {
        open.add(response);
      } else if (path === '/drip') {
        response.writeHead(200);
        const timer = setInterval(() => {
          if (response.destroyed) clearInterval(timer);
          else response.write('x');
        }, 50);
        response.on('close', () => clearInterval(timer));
      } else if (path === '/slow') {
        // 1 MiB declared, sent 32 KiB every half second (above the idle rule's 16 KiB a
        // second) until the test has seen progress (`finishSlow`), then the rest at once: a
        // loaded machine's slow start or late poll cannot miss it.
        response.writeHead(200, { 'content-length': String(SLOW_TOTAL) });
        let sent = 0;
        const send = (bytes: number) => {
          response.write(Buffer.alloc(bytes, 3));
          sent += bytes;
        };
        const finish = () => {
          clearInterval(timer);
          if (!response.writableEnded) response.end(Buffer.alloc(SLOW_TOTAL - sent, 3));
        };
        const timer = setInterval(
          () => (sent + SLOW_STEP >= SLOW_TOTAL ? finish() : send(SLOW_STEP)),
          500,
        );
        send(SLOW_STEP);
        open.add(response);
        finishSlow = finish;
        response.on('close', () => clearInterval(timer));
      } else if (path === '/gzip-bomb') {
        response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
        response.end(GZIP_BOMB);
      } else if (path === '/empty') {
        response.end();
      } else {
        response.writeHead(404).end();
      }
    });
    t = await startTestService(
      { FILEHOST_IMPORT_ALLOW_PRIVATE: 'false', FILEHOST_IMPORT_IDLE_TIMEOUT: '1' },
      { importTargetForTests: { treatAsPublic: [PUBLIC_STAND_IN] } },
    );
  });

  after(async () => {
    for (const response of open) response.destroy();
    await t.close();
    remote.server.close();
    inside.server.close();
  });

  const start = async (body: Record<string, unknown>, key?: string, origin?: string) =>
    json<ImportResponse>(
      await t.api('/v1/uploads/import', {
        method: 'POST',
        key,
        origin,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }),
      202,
    );

  /** Polls the record until the import has ended. */
  const settle = async (id: string, timeoutMs = 20_000): Promise<FileRecord> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await json<FileRecord>(await t.api(`/v1/files/${id}`));
      if (record.status !== 'pending') return record;
      assert.ok(Date.now() < deadline, `import ${id} still pending`);
      await delay(100);
    }
  };

  const importOf = async (url: string, extra: Record<string, unknown> = {}) => {
    const { file } = await start({ url, ...extra });
    assert.equal(file.status, 'pending');
    return settle(file.id);
  };

  const failsWith = async (url: string, code: string, status?: number) => {
    const record = await importOf(url);
    assert.equal(record.status, 'failed', `${url}: ${JSON.stringify(record)}`);
    assert.equal(record.importError?.code, code, `${url}: ${JSON.stringify(record.importError)}`);
    assert.equal(record.importError?.status, status);
    assert.ok((record.importError?.message ?? '').length > 0);
    // Removed: never listed, never served, nothing held.
    const page = await json<FileListResponse>(await t.api('/v1/files?limit=100'));
    assert.ok(!page.files.some((file) => file.id === record.id), 'a failed import is not listed');
    assert.equal((await fetch(`${t.cdnUrl}/${record.id}`)).status, 404);
    return record;
  };

  it('answers 202 with a pending record at once, then the file is ready, typed from its bytes', async () => {
    const { file } = await start({ url: `${remote.url}/cat.bin`, metadata: { user: 'u1' } });
    assert.equal(file.status, 'pending');
    assert.equal(file.name, 'cat.bin');
    assert.deepEqual(file.metadata, { user: 'u1' });
    assert.deepEqual(file.importProgress, { receivedBytes: 0, totalBytes: null });
    const ready = await settle(file.id);
    assert.equal(ready.status, 'ready');
    assert.equal(ready.mime, 'image/png');
    assert.equal(ready.size, PNG.length);
    assert.equal(ready.importProgress, undefined);
    assert.equal(ready.createdAt, file.createdAt);
    const served = await fetch(`${t.cdnUrl}/${file.id}`);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);
    const events = await json<EventListResponse>(await t.api('/v1/events?limit=100'));
    assert.ok(
      events.events.some((event) => event.type === 'file.ready' && event.data.id === file.id),
    );
  });

  it('names the file from `name`, else Content-Disposition, else the URL, sanitised', async () => {
    assert.equal((await importOf(`${remote.url}/named`)).name, 'Käse gpj.txt');
    assert.equal(
      (await importOf(`${remote.url}/named`, { name: 'mine/../x.txt' })).name,
      'mine..x.txt',
    );
    assert.equal((await importOf(`${remote.url}/hop/2`)).name, 'cat.bin');
  });

  it('shows progress while the fetch runs: bytes received and the declared total', async () => {
    const { file } = await start({ url: `${remote.url}/slow` });
    let seen: FileRecord | null = null;
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const record = await json<FileRecord>(await t.api(`/v1/files/${file.id}`));
      if (record.status === 'pending' && (record.importProgress?.receivedBytes ?? 0) > 0) {
        seen = record;
        break;
      }
      await delay(100);
    }
    finishSlow();
    assert.ok(seen, 'progress was never shown');
    const received = seen.importProgress?.receivedBytes ?? 0;
    assert.equal(seen.importProgress?.totalBytes, SLOW_TOTAL);
    assert.ok(received < SLOW_TOTAL && received % SLOW_STEP === 0, `${received} bytes received`);
    assert.equal(seen.size, SLOW_TOTAL);
    const listed = await json<FileListResponse>(await t.api('/v1/files?limit=100'));
    assert.equal(listed.files.find((one) => one.id === file.id)?.status, 'pending');
    assert.equal((await settle(file.id)).size, SLOW_TOTAL);
  });

  it('fails an answer that is not a file with import_http_error and its status; the room comes back', async () => {
    const before = await json<Usage>(await t.api('/v1/usage'));
    const record = await failsWith(`${remote.url}/missing`, 'import_http_error', 404);
    const usage = await json<Usage>(await t.api('/v1/usage'));
    assert.equal(usage.pendingBytes, before.pendingBytes);
    assert.equal(usage.pendingUploads, before.pendingUploads);
    const events = await json<EventListResponse>(await t.api('/v1/events?limit=100'));
    const failed = events.events.find(
      (event) => event.type === 'file.import_failed' && event.data.id === record.id,
    );
    assert.ok(failed, 'file.import_failed was recorded');
    assert.equal((failed.data as unknown as { reason: string }).reason, 'import_http_error');
  });

  it('refuses loopback, private, link-local and metadata targets: direct, named, redirected, in IPv6 forms', async () => {
    for (const url of [
      `${inside.url}/`,
      `http://localhost:${insidePort}/`,
      `http://${hostname()}:${insidePort}/`,
      `http://[::1]:${insidePort}/`,
      `http://[::ffff:127.0.0.1]:${insidePort}/`,
      `http://[::127.0.0.1]:${insidePort}/`,
      `http://[64:ff9b::a9fe:a9fe]/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://0x7f000001/',
      'http://2130706433/',
      `${remote.url}/to-inside`,
      `${remote.url}/to-localhost`,
      `${remote.url}/to-metadata`,
      `${remote.url}/to-ipv6-loopback`,
      `${remote.url}/to-file`,
      'http://no-such-host.invalid/',
    ]) {
      const record = await failsWith(url, 'import_refused_target');
      // Never says what a name resolved to.
      if (!/\/\/[\d[]/.test(url)) {
        assert.doesNotMatch(record.importError?.message ?? '', /127\.\d+\.\d+\.\d+|::1/);
      }
    }
  });

  it('refuses at once a URL that is not http(s), or carries credentials: 400, nothing created', async () => {
    const before = await json<Usage>(await t.api('/v1/usage'));
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/x',
      'gopher://127.0.0.1:70/',
      'javascript:alert(1)',
      `http://user:pass@${PUBLIC_STAND_IN}/cat.bin`,
      '/relative',
      '',
      `http://x/${'a'.repeat(2100)}`,
    ]) {
      await expectError(
        await t.api('/v1/uploads/import', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ url }),
        }),
        400,
        'invalid_request',
      );
    }
    for (const body of [
      '{"url": 5}',
      '[]',
      '{"url": "http://a/", "name": 5}',
      '{"url": "http://a/", "metadata": {"a": 1}}',
      '{"url": "http://a/", "visibility": "secret"}',
      'nope',
    ]) {
      await expectError(
        await t.api('/v1/uploads/import', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        }),
        400,
        'invalid_request',
      );
    }
    assert.deepEqual(await json<Usage>(await t.api('/v1/usage')), before);
  });

  it('follows at most 5 redirects, so a loop ends', async () => {
    assert.equal((await importOf(`${remote.url}/hop/4`)).status, 'ready');
    await failsWith(`${remote.url}/hop/5`, 'import_failed');
    await failsWith(`${remote.url}/loop`, 'import_failed');
  });

  it('counts the body, not the Content-Length: 10 GB declared, endless, more or less than declared', async () => {
    await failsWith(`${remote.url}/huge-declared`, 'too_large');
    const endless = await failsWith(`${remote.url}/endless`, 'too_large');
    assert.match(endless.importError?.message ?? '', /free plan/);
    assert.equal(endless.importError?.limit, 100_000_000);
    const more = await importOf(`${remote.url}/more-than-declared`);
    assert.equal(more.size, 10);
    assert.equal(
      Buffer.from(await (await fetch(`${t.cdnUrl}/${more.id}`)).arrayBuffer()).toString(),
      '0123456789',
    );
    await failsWith(`${remote.url}/less-than-declared`, 'import_failed');
    await failsWith(`${remote.url}/empty`, 'import_failed');
  });

  it('ends a server that never answers, and one that drips, as import_timeout', async () => {
    await failsWith(`${remote.url}/silent`, 'import_timeout');
    await failsWith(`${remote.url}/drip`, 'import_timeout');
  });

  it('stores a gzip bomb as sent: no Content-Encoding is undone', async () => {
    const record = await importOf(`${remote.url}/gzip-bomb`);
    assert.equal(record.status, 'ready', JSON.stringify(record));
    assert.equal(record.size, GZIP_BOMB.length);
    assert.ok(record.size < 1024 * 1024);
    assert.equal(record.mime, 'application/gzip');
  });

  it('stops an import deleted while it runs: 404 after, no bytes kept, no failure event', async () => {
    const { file } = await start({ url: `${remote.url}/drip` });
    await delay(300);
    assert.equal((await t.api(`/v1/files/${file.id}`, { method: 'DELETE' })).status, 204);
    await delay(2500);
    await expectError(await t.api(`/v1/files/${file.id}`), 404, 'not_found');
    assert.ok(!(await t.stored()).some((path) => path.includes(file.id)));
    const events = await json<EventListResponse>(await t.api('/v1/events?limit=100'));
    assert.ok(
      !events.events.some(
        (event) => event.type === 'file.import_failed' && event.data.id === file.id,
      ),
    );
  });

  it('holds upload tokens to their limits: maxFileSize, types, maxFiles, metadata and visibility', async () => {
    const token = async (policy: Record<string, unknown>) =>
      (
        await json<{ token: string }>(
          await t.api('/v1/upload-tokens', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(policy),
          }),
          201,
        )
      ).token;
    const small = await token({ maxFileSize: 100 });
    const { file: big } = await start({ url: `${remote.url}/cat.bin` }, small);
    const tooLarge = await settle(big.id);
    assert.equal(tooLarge.importError?.code, 'too_large');
    assert.match(tooLarge.importError?.message ?? '', /upload token/);
    // The limit as a number too, for a page to name in its own language.
    assert.equal(tooLarge.importError?.limit, 100);

    const images = await token({
      types: ['image/*'],
      metadata: { user: 'u7' },
      visibility: 'private',
      maxFiles: 2,
    });
    const { file: page } = await start({ url: `${remote.url}/page.html`, name: 'cat.png' }, images);
    assert.equal((await settle(page.id)).importError?.code, 'unsupported_type');
    const { file: cat } = await start(
      { url: `${remote.url}/cat.bin`, metadata: { user: 'forged' } },
      images,
    );
    const ready = await settle(cat.id);
    assert.equal(ready.status, 'ready');
    assert.deepEqual(ready.metadata, { user: 'u7' });
    assert.equal(ready.visibility, 'private');
    assert.equal(ready.url, null);
    // The refused import gave its file back; the ready one counts: one more, then none.
    const { file: again } = await start({ url: `${remote.url}/cat.bin` }, images);
    assert.equal((await settle(again.id)).status, 'ready');
    await expectError(
      await t.api('/v1/uploads/import', {
        method: 'POST',
        key: images,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${remote.url}/cat.bin` }),
      }),
      403,
      'token_exhausted',
    );
  });

  it('takes the publishable key with its origin rules', async () => {
    const { file } = await start(
      { url: `${remote.url}/cat.bin` },
      t.publishableKey,
      ALLOWED_ORIGIN,
    );
    assert.equal((await settle(file.id)).status, 'ready');
    await expectError(
      await t.api('/v1/uploads/import', {
        method: 'POST',
        key: t.publishableKey,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${remote.url}/cat.bin` }),
      }),
      403,
      'origin_not_allowed',
    );
    await expectError(
      await t.api('/v1/uploads/import', {
        method: 'POST',
        key: null,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${remote.url}/cat.bin` }),
      }),
      401,
      'missing_auth',
    );
  });
});

describe('POST /v1/uploads/import within a storage quota', () => {
  let t: TestService;
  let remote: { url: string; server: Server };

  before(async () => {
    remote = await serveRemote(PUBLIC_STAND_IN, (_request, response) =>
      response.end(Buffer.alloc(600, 1)),
    );
    t = await startTestService(
      { FILEHOST_IMPORT_ALLOW_PRIVATE: 'false', FILEHOST_STORAGE_QUOTA: '1000' },
      { importTargetForTests: { treatAsPublic: [PUBLIC_STAND_IN] } },
    );
  });

  after(async () => {
    await t.close();
    remote.server.close();
  });

  it('holds only the room left, and fails a file larger than it', async () => {
    const start = async () =>
      t.api('/v1/uploads/import', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${remote.url}/a.bin` }),
      });
    const settle = async (id: string) => {
      for (;;) {
        const record = await json<FileRecord>(await t.api(`/v1/files/${id}`));
        if (record.status !== 'pending') return record;
        await delay(100);
      }
    };
    const first = await json<ImportResponse>(await start(), 202);
    assert.equal((await settle(first.file.id)).status, 'ready');
    const second = await json<ImportResponse>(await start(), 202);
    const failed = await settle(second.file.id);
    assert.equal(failed.importError?.code, 'too_large');
    assert.match(failed.importError?.message ?? '', /quota/);
    assert.equal((await json<Usage>(await t.api('/v1/usage'))).storedBytes, 600);
  });
});
