import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import {
  type ImportErrorCode,
  ImportFailure,
  openRemoteFile,
  type RemoteFileOptions,
} from '../../../src/server/imports/remote-file.js';
import { PUBLIC_STAND_IN, serveRemote } from '../../helpers/remote-server.js';

const BYTES = Buffer.from('the bytes of a file, as sent');

describe('fetching a file to import: the target guard on every hop, and the body counted', () => {
  let remote: { url: string; server: Server };
  let inside: { url: string; server: Server };
  let never: { url: string; server: Server };
  const options = (extra: Partial<RemoteFileOptions> = {}): RemoteFileOptions => ({
    allowPrivate: false,
    maxBytes: 1024 * 1024,
    target: { treatAsPublic: [PUBLIC_STAND_IN] },
    ...extra,
  });
  const fails = async (
    url: string,
    code: ImportErrorCode,
    extra: Partial<RemoteFileOptions> = {},
  ) => {
    let failure: unknown;
    try {
      const file = await openRemoteFile(new URL(url), options(extra));
      await buffer(file.body);
    } catch (error) {
      failure = error;
    }
    assert.ok(failure instanceof ImportFailure, `${url}: ${String(failure)}`);
    assert.equal(failure.code, code, `${url}: ${failure.message}`);
    return failure;
  };

  before(async () => {
    inside = await serveRemote('127.0.0.1', (_request, response) =>
      response.end('internal secret'),
    );
    never = await serveRemote(PUBLIC_STAND_IN, () => {
      // Accepts the connection and never answers.
    });
    remote = await serveRemote(PUBLIC_STAND_IN, (request, response, socket) => {
      const path = request.url ?? '/';
      if (path === '/cat.png') {
        response.setHeader('content-type', 'image/png');
        response.end(BYTES);
      } else if (path === '/named') {
        response.setHeader('content-disposition', `attachment; filename*=UTF-8''K%C3%A4se.txt`);
        response.end(BYTES);
      } else if (path === '/to-inside') {
        response.writeHead(302, { location: `${inside.url}/` }).end();
      } else if (path === '/to-localhost') {
        const { port } = inside.server.address() as AddressInfo;
        response.writeHead(301, { location: `http://localhost:${port}/` }).end();
      } else if (path === '/to-metadata') {
        response.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (path === '/to-file') {
        response.writeHead(302, { location: 'file:///etc/passwd' }).end();
      } else if (path.startsWith('/hop/')) {
        const left = Number(path.slice('/hop/'.length));
        response.writeHead(302, { location: left > 0 ? `/hop/${left - 1}` : '/cat.png' }).end();
      } else if (path === '/missing') {
        response.writeHead(404).end('no');
      } else if (path === '/huge-declared') {
        response.writeHead(200, { 'content-length': String(10 * 1024 ** 3) });
        response.write(Buffer.alloc(1024));
      } else if (path === '/endless') {
        const chunk = Buffer.alloc(64 * 1024, 1);
        const more = () => {
          while (response.write(chunk)) {
            if (response.destroyed) return;
          }
          response.once('drain', more);
        };
        more();
      } else if (path === '/more-than-declared') {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n0123456789EXTRA-BYTES-AFTER-THE-BODY',
        );
      } else if (path === '/less-than-declared') {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly twenty bytes...');
        setTimeout(() => socket.destroy(), 50);
      } else if (path === '/drip') {
        response.writeHead(200);
        const timer = setInterval(() => {
          if (response.destroyed) clearInterval(timer);
          else response.write('x');
        }, 20);
        response.on('close', () => clearInterval(timer));
      } else if (path === '/gzip-bomb') {
        response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
        response.end(gzipSync(Buffer.alloc(64 * 1024 * 1024)));
      } else {
        response.writeHead(500).end();
      }
    });
  });
  after(() => {
    for (const { server } of [remote, inside, never]) server.close();
  });

  it('streams the body of a public URL, with its type and name', async () => {
    const file = await openRemoteFile(new URL(`${remote.url}/cat.png`), options());
    assert.deepEqual(await buffer(file.body), BYTES);
    assert.equal(file.contentType, 'image/png');
    assert.equal(file.name, 'cat.png');
    const named = await openRemoteFile(new URL(`${remote.url}/named`), options());
    assert.equal(named.name, 'Käse.txt');
    await buffer(named.body);
  });

  it('refuses loopback, private and metadata targets, named or not, and says no address', async () => {
    await fails(`${inside.url}/`, 'import_refused_target');
    const { port } = inside.server.address() as AddressInfo;
    const named = await fails(`http://localhost:${port}/`, 'import_refused_target');
    assert.doesNotMatch(named.message, /127\.0\.0\.1|::1/);
    await fails('http://169.254.169.254/latest/meta-data/', 'import_refused_target');
    await fails(`http://[::ffff:127.0.0.1]:${port}/`, 'import_refused_target');
  });

  it('checks every redirect again, and follows at most five', async () => {
    await fails(`${remote.url}/to-inside`, 'import_refused_target');
    await fails(`${remote.url}/to-localhost`, 'import_refused_target');
    await fails(`${remote.url}/to-metadata`, 'import_refused_target');
    await fails(`${remote.url}/to-file`, 'import_refused_target');
    const five = await openRemoteFile(new URL(`${remote.url}/hop/4`), options());
    assert.deepEqual(await buffer(five.body), BYTES);
    assert.equal(five.url.pathname, '/cat.png');
    await fails(`${remote.url}/hop/5`, 'import_failed');
  });

  it('lets private targets through only when allowed', async () => {
    const file = await openRemoteFile(new URL(`${inside.url}/`), options({ allowPrivate: true }));
    assert.equal((await buffer(file.body)).toString(), 'internal secret');
  });

  it('says the status of an answer that is not a file', async () => {
    const failure = await fails(`${remote.url}/missing`, 'import_http_error');
    assert.equal(failure.status, 404);
  });

  it('refuses a 10 GB Content-Length at once, and counts an endless body as it streams', async () => {
    await fails(`${remote.url}/huge-declared`, 'too_large');
    await fails(`${remote.url}/endless`, 'too_large', { maxBytes: 2 * 1024 * 1024 });
  });

  it('keeps exactly the declared body when more follows it, and fails a body cut short', async () => {
    const file = await openRemoteFile(new URL(`${remote.url}/more-than-declared`), options());
    assert.equal((await buffer(file.body)).toString(), '0123456789');
    await fails(`${remote.url}/less-than-declared`, 'import_failed');
  });

  it('ends a server that never answers, and one that drips, as timed out', async () => {
    await fails(`${never.url}/`, 'import_timeout', { idleMs: 300 });
    await fails(`${remote.url}/drip`, 'import_timeout', { idleMs: 300, progressBytes: 1024 });
  });

  it('stores a gzip body as sent: no Content-Encoding is undone (no bomb goes off)', async () => {
    const file = await openRemoteFile(new URL(`${remote.url}/gzip-bomb`), options());
    const bytes = await buffer(file.body);
    assert.ok(bytes.length < 200 * 1024, `${bytes.length} bytes`);
    assert.deepEqual(bytes.subarray(0, 2), Buffer.from([0x1f, 0x8b]));
  });
});
