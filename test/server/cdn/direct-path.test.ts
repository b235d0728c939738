// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { UploadResponse } from '../../../src/api/types.js';
import { answerDirectly, directFileId } from '../../../src/server/cdn/direct-path.js';
import { READ_WHOLE_BYTES } from '../../../src/server/cdn/served-file.js';
import { json, patternBytes, startTestService, type TestService } from '../../helpers/service.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One exchange on a fresh connection, the body as bytes. */
function exchange(url: string, method: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * What two answers to the same request must share: all but the moment, the connection, and
 * the request's own id (each answer names its request; that it carries one is checked).
 */
function comparable(answer: Answer): Omit<Answer, 'body'> & { body: string } {
  const {
    date: _date,
    connection: _connection,
    'keep-alive': _keepAlive,
    'x-request-id': requestId,
    ...rest
  } = answer.headers;
  assert.match(String(requestId), /^[\w.:-]+$/, 'every answer names its request');
  return { status: answer.status, headers: rest, body: answer.body.toString('base64') };
}

/**
 * A server whose only handler is the direct path over a real service's context; whatever it
 * leaves answers 599, so each request shows whether the direct path took it.
 */
async function directServer(t: TestService): Promise<{ server: Server; url: string }> {
  const ctx = t.service.context;
  const server = createServer((request, response) => {
    const id = directFileId(request);
    const leave = () => response.writeHead(599).end('the routes');
    if (id === null) return leave();
    answerDirectly(ctx, id, request, response).then(
      (answered) => answered || leave(),
      () => response.writeHead(598).end('threw'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

for (const cacheMb of ['0', '64']) {
  describe(`the CDN direct path answers as the routes do (memory cache ${cacheMb} MB)`, () => {
    let t: TestService;
    let direct: { server: Server; url: string };
    const files: { file: UploadResponse; bytes: Uint8Array<ArrayBuffer> }[] = [];

    const upload = async (bytes: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) =>
      json<UploadResponse>(
        await t.api('/v1/upload', {
          method: 'POST',
          body: bytes,
          headers: { 'Content-Type': 'application/octet-stream', ...headers },
        }),
        201,
      );

    before(async () => {
      t = await startTestService({ FILEHOST_CDN_CACHE_MB: cacheMb });
      direct = await directServer(t);
      // One chunk of the store's sending and two (and, for the routes, read whole in one
      // buffer and streamed by range).
      for (const [size, seed] of [
        [1024, 1],
        [READ_WHOLE_BYTES + 40_000, 2],
      ] as const) {
        const bytes = patternBytes(size, seed);
        files.push({ file: await upload(bytes, { 'X-Filename': 'report.bin' }), bytes });
      }
    });
    after(async () => {
      direct.server.close();
      await t.close();
    });

    it('gives the same status, headers and bytes for every kind of GET and HEAD', async () => {
      for (const { file, bytes } of files) {
        const size = bytes.length;
        const lastModified = String(
          (await exchange(`${t.cdnUrl}/${file.id}`, 'HEAD', {})).headers['last-modified'],
        );
        const requests: [string, Record<string, string>][] = [
          ['GET', {}],
          ['HEAD', {}],
          ['GET', { range: 'bytes=0-99' }],
          ['GET', { range: `bytes=${size - 10}-` }],
          ['GET', { range: 'bytes=-10' }],
          ['GET', { range: `bytes=-${size + 5}` }],
          ['GET', { range: `bytes=100-${size + 99}` }],
          ['HEAD', { range: 'bytes=0-99' }],
          ['GET', { range: 'bytes=abc' }],
          ['GET', { range: 'bytes=0-1,5-6' }],
          ['GET', { range: 'bytes=0-1', 'if-range': '"old"' }],
          ['GET', { range: 'bytes=0-1', 'if-range': `"${file.id}"` }],
          ['GET', { 'if-none-match': `"${file.id}"` }],
          ['GET', { 'if-none-match': '"other"' }],
          ['GET', { 'if-modified-since': lastModified }],
          ['GET', { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' }],
          ['HEAD', { 'if-none-match': `"${file.id}"` }],
        ];
        for (const [method, headers] of requests) {
          const what = `${size} B ${method} ${JSON.stringify(headers)}`;
          // Twice: the second may be answered from what the first left in memory.
          for (let round = 0; round < 2; round++) {
            const viaDirect = await exchange(
              `${direct.url}/${file.id}/report.bin`,
              method,
              headers,
            );
            assert.notEqual(viaDirect.status, 599, `${what}: left to the routes`);
            // Another query name is ignored (the original is served) and takes the routes.
            const viaRoutes = await exchange(`${t.cdnUrl}/${file.id}?via=routes`, method, headers);
            assert.deepEqual(comparable(viaDirect), comparable(viaRoutes), what);
          }
        }
        const whole = await exchange(`${direct.url}/${file.id}`, 'GET', {});
        assert.ok(whole.body.equals(Buffer.from(bytes)), `${size} B: the stored bytes`);
      }
    });

    it('leaves to the routes, having written nothing, what is not a public file to send', async () => {
      const { file } = files[0] as { file: UploadResponse };
      const hidden = await upload(patternBytes(64, 3), { 'X-Visibility': 'private' });
      const gone = await upload(patternBytes(64, 4));
      assert.equal((await exchange(`${direct.url}/${gone.id}`, 'GET', {})).status, 200);
      assert.equal((await t.api(`/v1/files/${gone.id}`, { method: 'DELETE' })).status, 204);
      const left: [string, Record<string, string>][] = [
        ['/unknownid', {}],
        [`/${hidden.id}`, {}],
        [`/${gone.id}`, {}],
        [`/${file.id}`, { range: 'bytes=999999999-' }],
      ];
      for (const [path, headers] of left) {
        const answer = await exchange(`${direct.url}${path}`, 'GET', headers);
        assert.equal(answer.status, 599, `${path} ${JSON.stringify(headers)}`);
        assert.equal(answer.body.toString(), 'the routes');
      }
      // And the routes' answers to those are what they always were.
      assert.equal((await exchange(`${t.cdnUrl}/${hidden.id}`, 'GET', {})).status, 404);
      assert.equal((await exchange(`${t.cdnUrl}/${gone.id}`, 'GET', {})).status, 404);
      const past = await exchange(`${t.cdnUrl}/${file.id}`, 'GET', { range: 'bytes=999999999-' });
      assert.equal(past.status, 416);
    });

    it('takes only a plain GET or HEAD that the request guard lets through', () => {
      // The request as node:http hands it over: the guard reads the raw header lines.
      const asked = (method: string, url: string, headers: [string, string][] = []) =>
        directFileId({
          method,
          url,
          headers: Object.fromEntries(headers),
          rawHeaders: headers.flat(),
        } as never);
      assert.equal(asked('GET', '/abcDEF_-1/x.txt'), 'abcDEF_-1');
      assert.equal(asked('HEAD', '/abcDEF_-1'), 'abcDEF_-1');
      assert.equal(asked('POST', '/abcDEF_-1'), null);
      assert.equal(asked('GET', '/abcDEF_-1?sig=x&exp=1'), null);
      assert.equal(asked('GET', '/abcDEF_-1?w=64'), null);
      assert.equal(asked('GET', '/%61bc'), null);
      const twice: [string, string][] = [
        ['Authorization', 'Bearer a'],
        ['Authorization', 'Bearer b'],
      ];
      assert.equal(asked('GET', '/abcDEF_-1', twice), null);
    });
  });
}
