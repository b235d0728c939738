// @also-on-node-24: pure JavaScript, no service (npm run test:node24)
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it, mock } from 'node:test';
import { loadChunk, MissingChunkError } from '../../src/client/missing-chunk.js';

/**
 * How an on-use chunk that failed to import is told apart: its server answers (a 404, or a
 * page served in its place) — missing; it cannot be reached — a lost connection, rethrown as
 * it was. A real HTTP server here; the import failures are worded as Chromium words them.
 */
describe('loadChunk', () => {
  let origin: string;
  const server = createServer((request, response) => {
    if (request.url === '/index.html-for-everything.js')
      response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html>');
    else response.writeHead(404).end();
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  const failing = (url: string) => () =>
    Promise.reject(new TypeError(`Failed to fetch dynamically imported module: ${url}`));

  it('answers what the import gives when it works', async () => {
    assert.equal(await loadChunk(() => Promise.resolve(42)), 42);
  });

  for (const path of ['/filehost-upload-engine-abc.js', '/index.html-for-everything.js']) {
    it(`fails as missing, naming the URL in the console, when the server answers (${path})`, async (t) => {
      const logged = t.mock.method(console, 'error', () => {});
      await assert.rejects(loadChunk(failing(`${origin}${path}`)), MissingChunkError);
      assert.equal(logged.mock.callCount(), 1);
      assert.deepEqual(logged.mock.calls[0]?.arguments.slice(0, 2), [
        'filehost: missing',
        `${origin}${path}`,
      ]);
    });
  }

  it('rethrows the import failure as it was when the URL cannot be fetched (offline)', async () => {
    // A port nothing listens on: the fetch itself fails.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const logged = mock.method(console, 'error', () => {});
    try {
      await assert.rejects(
        loadChunk(failing(`http://127.0.0.1:${port}/filehost-upload-engine-abc.js`)),
        (error: unknown) => error instanceof TypeError && !(error instanceof MissingChunkError),
      );
      assert.equal(logged.mock.callCount(), 0);
    } finally {
      logged.mock.restore();
    }
  });
});
