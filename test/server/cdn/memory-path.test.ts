import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import Fastify, { type FastifyRequest } from 'fastify';
import { type ServedFile, ServingCache } from '../../../src/server/cache/serving-cache.js';
import { answerHead } from '../../../src/server/cdn/answer-head.js';
import { answerFromMemory, plainFileId } from '../../../src/server/cdn/memory-path.js';
import type { FileRow } from '../../../src/server/db/metadata-store.js';
import {
  patternBytes,
  rawHttp,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const ID = 'aB3_-x';
const BYTES = Buffer.from('hello, memory');

function cached(id = ID, visibility: FileRow['visibility'] = 'public'): ServedFile {
  const headers = { 'content-type': 'text/plain', etag: `"${id}"` };
  return {
    row: { id, size: BYTES.length, visibility } as FileRow,
    headers,
    bytes: BYTES,
    wholeHead: answerHead(headers, BYTES.length),
  };
}

/**
 * A real HTTP server whose handler is the memory path; whatever it leaves goes to a
 * stand-in for the framework's routes that answers 599, so each request shows which of
 * the two answered it.
 */
async function serverWith(cache: ServingCache): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (answerFromMemory(cache, request, response)) return;
    response.writeHead(599).end('the routes');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('the CDN memory path', () => {
  const cache = new ServingCache({
    maxBytes: 1 << 20,
    maxFileBytes: 64 * 1024,
    trustRecords: true,
  });
  let site: { server: Server; url: string };
  before(async () => {
    cache.put(ID, cached(), cache.epoch);
    site = await serverWith(cache);
  });
  after(() => site.server.close());

  it('answers a plain GET of a file it holds with its headers and bytes', async () => {
    for (const path of [`/${ID}`, `/${ID}/`, `/${ID}/report.txt`, `/${ID}/a/b-c.txt`]) {
      const answer = await rawHttp(site.url, { method: 'GET', path: encodeURI(path), headers: {} });
      assert.equal(answer.status, 200, path);
      assert.equal(answer.body, BYTES.toString());
      assert.equal(answer.headers['content-type'], 'text/plain');
      assert.equal(answer.headers.etag, `"${ID}"`);
      assert.equal(answer.headers['content-length'], String(BYTES.length));
    }
  });

  it('names each answer by its own request: the id sent, when sane, else a new one', async () => {
    // The entry's one header list carries each answer's id in its last slot: requests at
    // once must each get theirs, once, and the entry's other headers stay as they were.
    const sent = (index: number): Record<string, string> => {
      if (index % 3 === 0) return { 'x-request-id': `trace-${index}` };
      if (index % 3 === 1) return { 'x-request-id': `not sane ${index}` };
      return {};
    };
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        rawHttp(site.url, { method: 'GET', path: `/${ID}`, headers: sent(index) }),
      ),
    );
    const ids = answers.map((answer, index) => {
      const id = String(answer.headers['x-request-id']);
      if (index % 3 === 0) assert.equal(id, `trace-${index}`);
      else
        assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(answer.headers['content-length'], String(BYTES.length));
      assert.equal(answer.headers.etag, `"${ID}"`);
      assert.equal(answer.body, BYTES.toString());
      return id;
    });
    assert.equal(new Set(ids).size, ids.length, 'each answer its own id');
  });

  it('never answers a private file, even one the cache holds (the routes check its link)', async () => {
    // The CDN keeps no private file in the cache; this guards the path should one get in.
    const privateId = 'pR1v_8';
    cache.put(privateId, cached(privateId, 'private'), cache.epoch);
    assert.ok(cache.get(privateId));
    for (const path of [`/${privateId}`, `/${privateId}/report.txt`]) {
      const answer = await rawHttp(site.url, { method: 'GET', path, headers: {} });
      assert.equal(answer.status, 599, path);
    }
  });

  it('leaves to the routes every request with anything to decide', async () => {
    const left: [string, Record<string, string | string[]>, string?][] = [
      [`/${ID}`, {}, 'HEAD'],
      [`/${ID}`, { range: 'bytes=0-1' }],
      [`/${ID}`, { 'if-none-match': `"${ID}"` }],
      [`/${ID}`, { 'if-modified-since': 'Wed, 25 Nov 2026 00:00:00 GMT' }],
      // The request guard refuses a singleton header sent twice: the routes answer that.
      [`/${ID}`, { authorization: ['Bearer a', 'Bearer b'] }],
      [`/${ID}?download=1`, {}],
      [`/%61B3_-x`, {}],
      [`/${ID}/%2e%2e`, {}],
      ['/unknown', {}],
      [`/${ID}/${'x'.repeat(9000)}`, {}],
    ];
    for (const [path, headers, method] of left) {
      const answer = await rawHttp(site.url, { method: method ?? 'GET', path, headers });
      assert.equal(
        answer.status,
        599,
        `${method ?? 'GET'} ${path.slice(0, 40)} ${JSON.stringify(headers)}`,
      );
    }
  });

  it('never answers for a file it does not hold whole, nor where the database must decide', async () => {
    const recordOnly = new ServingCache({ ...cache.options });
    recordOnly.put(ID, { ...cached(), bytes: null, wholeHead: null }, recordOnly.epoch);
    const atScale = new ServingCache({ ...cache.options, trustRecords: false });
    atScale.put(ID, cached(), atScale.epoch);
    const forgotten = new ServingCache({ ...cache.options });
    forgotten.put(ID, cached(), forgotten.epoch);
    forgotten.forget(ID);
    for (const other of [recordOnly, atScale, forgotten]) {
      const otherSite = await serverWith(other);
      try {
        const answer = await rawHttp(otherSite.url, { method: 'GET', path: `/${ID}`, headers: {} });
        assert.equal(answer.status, 599);
      } finally {
        otherSite.server.close();
      }
    }
  });

  it('reads the id from a URL exactly as the CDN routes do, or leaves the URL to them', async () => {
    // The routes of buildCdnApp, with its router options, recording the id they are given;
    // asked over HTTP, since an injected request has its URL normalised on the way.
    const routes = Fastify({ routerOptions: { maxParamLength: 500 } });
    const handler = async (request: FastifyRequest<{ Params: { id: string } }>) => ({
      id: request.params.id,
    });
    routes.get('/:id', handler);
    routes.get('/:id/*', handler);
    const base = await routes.listen({ host: '127.0.0.1', port: 0 });
    const segment = fc.stringMatching(/^[A-Za-z0-9_.~%?#/ -]{0,12}$/);
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.constant(ID), fc.stringMatching(/^[A-Za-z0-9_-]{1,130}$/), segment),
          fc.oneof(
            fc.constant(''),
            segment.map((rest) => `/${rest}`),
            segment,
          ),
          async (first, rest) => {
            const url = `/${first}${rest}`.replaceAll(' ', '+').replaceAll('#', '~');
            const id = plainFileId(url);
            if (id === null) return;
            const routed = await rawHttp(base, { method: 'GET', path: url, headers: {} });
            assert.equal(routed.status, 200, url);
            assert.equal((JSON.parse(routed.body) as { id: string }).id, id, url);
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      await routes.close();
    }
  });
});

describe('the CDN server: the idle timeout, armed by hand', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_IDLE_TIMEOUT: '1' });
  });
  after(() => t.close());

  /** Milliseconds until the server closes a connection on which the client does `act`. */
  const closedAfter = (act: (socket: Socket) => void) =>
    new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(t.cdnUrl);
      const started = Date.now();
      const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
      socket.on('connect', () => act(socket));
      socket.on('data', () => {});
      socket.on('error', () => {});
      socket.on('close', () => resolve(Date.now() - started));
      setTimeout(() => reject(new Error('still open after 8 s')), 8_000).unref();
    });

  it('cuts a connection that sends nothing, as `server.setTimeout` did', async () => {
    const waited = await closedAfter(() => {});
    assert.ok(waited >= 900, `closed after ${waited} ms`);
  });

  it('cuts a connection whose request stalls halfway through its headers', async () => {
    const waited = await closedAfter((socket) => socket.write('GET /abc HTTP/1.1\r\nHost: x\r\n'));
    assert.ok(waited >= 900, `closed after ${waited} ms`);
  });

  it('still answers on a connection kept alive across requests', async () => {
    const upload = await t.api('/v1/upload', { method: 'POST', body: patternBytes(1024, 3) });
    const { id } = (await upload.json()) as { id: string };
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${t.cdnUrl}/${id}`);
      assert.equal(answer.status, 200);
      assert.equal((await answer.arrayBuffer()).byteLength, 1024);
    }
  });
});
