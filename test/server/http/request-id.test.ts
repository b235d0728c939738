// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ApiError } from '../../../src/client/api-error.js';
import { FilehostClient } from '../../../src/client/client.js';
import { requestIdOf } from '../../../src/server/http/request-id.js';
import { SCALE } from '../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  rawHttp,
  spawnService,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SANE = /^[A-Za-z0-9._~:/+=@-]{1,128}$/;

/** The answer's id, after checking that its error body (if any) names the same one. */
async function idOf(response: Response): Promise<string> {
  const id = response.headers.get('x-request-id');
  assert.ok(id, `${response.url} answered ${response.status} without X-Request-Id`);
  if (response.status >= 400 && response.status !== 416) {
    const body = (await response.json()) as { error: { requestId?: string } };
    assert.equal(body.error.requestId, id, 'error.requestId is the header');
  } else {
    await response.arrayBuffer();
  }
  return id;
}

describe('request ids', { timeout: 120_000 }, () => {
  let t: TestService;
  let fileId: string;
  before(async () => {
    t = await startTestService();
    const uploaded = await t.api('/v1/upload', {
      method: 'POST',
      body: 'named bytes',
      headers: { 'X-Filename': 'a.txt' },
    });
    assert.equal(uploaded.status, 201);
    fileId = ((await uploaded.json()) as { id: string }).id;
  });
  after(() => t.close());

  it('names every answer of the API, successes, refusals and unknown routes alike', async () => {
    const answers = [
      await t.api('/v1/files'),
      await t.api('/v1/files', { key: null }),
      await t.api('/v1/files/nope'),
      await t.api('/v1/no-such-route'),
      await fetch(`${t.apiUrl}/v1/files`, {
        method: 'OPTIONS',
        headers: { Origin: ALLOWED_ORIGIN },
      }),
      await fetch(`${t.apiUrl}/healthz`),
    ];
    const ids = await Promise.all(answers.map(idOf));
    for (const id of ids) assert.match(id, UUID);
    assert.equal(new Set(ids).size, ids.length, 'each request its own id');
  });

  it('names every answer of the CDN: from memory, through the routes, and its errors', async () => {
    const answers = [
      await fetch(`${t.cdnUrl}/${fileId}`),
      await fetch(`${t.cdnUrl}/${fileId}`), // the second from the serving cache (embedded)
      await fetch(`${t.cdnUrl}/${fileId}`, { headers: { Range: 'bytes=0-3' } }),
      await fetch(`${t.cdnUrl}/no-such-file`),
      await fetch(`${t.cdnUrl}/${fileId}?exp=1&sig=bad`),
      await fetch(`${t.cdnUrl}/healthz`),
    ];
    for (const id of await Promise.all(answers.map(idOf))) assert.match(id, UUID);
    assert.equal(answers[0]?.headers.get('access-control-expose-headers'), 'X-Request-Id');
  });

  it('echoes a sane id the caller sent, on both ports, on success and on error', async () => {
    const sent = 'lb-7f3a:9c1d/retry=2@edge.eu_1~x+y';
    const answers = [
      await t.api('/v1/files', { headers: { 'X-Request-Id': sent } }),
      await t.api('/v1/files/nope', { headers: { 'X-Request-Id': sent } }),
      await fetch(`${t.cdnUrl}/${fileId}`, { headers: { 'X-Request-Id': sent } }),
      await fetch(`${t.cdnUrl}/${fileId}`, { headers: { 'X-Request-Id': sent } }),
      await fetch(`${t.cdnUrl}/nope`, { headers: { 'X-Request-Id': sent } }),
      await fetch(`${t.apiUrl}/readyz`, { headers: { 'X-Request-Id': sent } }),
    ];
    for (const response of answers) assert.equal(await idOf(response), sent);
    const longest = 'a'.repeat(128);
    const echoed = await t.api('/v1/files', { headers: { 'X-Request-Id': longest } });
    assert.equal(await idOf(echoed), longest);
  });

  it('replaces an id that is too long, empty or holds what a log line must not', async () => {
    for (const insane of [
      'a'.repeat(129),
      '',
      'two words',
      'quote"d',
      'semi;colon',
      'a,b',
      '{json}',
    ]) {
      for (const response of [
        await t.api('/v1/files/nope', { headers: { 'X-Request-Id': insane } }),
        await fetch(`${t.cdnUrl}/${fileId}`, { headers: { 'X-Request-Id': insane } }),
      ]) {
        const id = await idOf(response);
        assert.notEqual(id, insane);
        assert.match(id, UUID, `for ${JSON.stringify(insane)}`);
      }
    }
    // Two values (a proxy that appended one): neither is trusted.
    const twice = await rawHttp(t.apiUrl, {
      method: 'GET',
      path: '/v1/nothing',
      headers: { 'X-Request-Id': ['one', 'two'] },
    });
    assert.match(String(twice.headers['x-request-id']), UUID);
  });

  it('names the answers the HTTP layer makes before any route: 400, 404, 414, 431', async () => {
    const exchanges = [
      // A malformed percent-encoding in the path: the router's refusal.
      await rawHttp(t.apiUrl, { method: 'GET', path: '/v1/files/%zz', headers: {} }),
      await rawHttp(t.cdnUrl, { method: 'GET', path: '/%zz', headers: {} }),
      // A request line past the limit, and headers past it: Node's parser refuses them.
      await rawHttp(t.apiUrl, {
        method: 'GET',
        path: `/v1/files/${'x'.repeat(20_000)}`,
        headers: {},
      }),
      await rawHttp(t.cdnUrl, {
        method: 'GET',
        path: '/x',
        headers: { 'X-Big': 'y'.repeat(20_000) },
      }),
    ];
    const statuses = exchanges.map((exchange) => exchange.status);
    assert.ok(statuses.includes(414) && statuses.includes(431), statuses.join(', '));
    for (const exchange of exchanges) {
      const id = String(exchange.headers['x-request-id']);
      assert.match(id, UUID, `${exchange.status}`);
      const body = JSON.parse(exchange.body) as { error: { requestId?: string } };
      assert.equal(body.error.requestId, id, `${exchange.status}: error.requestId is the header`);
    }
  });

  it("lets the typed client's ApiError carry the id of the failed call", async () => {
    const client = new FilehostClient({ endpoint: t.apiUrl, apiKey: t.secretKey });
    const failure = await client.getFile('no-such-file').then(
      () => assert.fail('a missing file was found'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof ApiError);
    assert.equal(failure.code, 'not_found');
    assert.match(failure.requestId ?? '', UUID);
    assert.equal(failure.details.requestId, failure.requestId, 'the elements read it there');
  });
});

describe('ApiError.requestId', () => {
  it("takes the error body's, which every error of the service carries; else none", () => {
    const body = JSON.stringify({ error: { code: 'not_found', message: 'No.', requestId: 'b' } });
    assert.equal(ApiError.fromBody(404, body, null).requestId, 'b');
    const bare = JSON.stringify({ error: { code: 'not_found', message: 'No.' } });
    assert.equal(ApiError.fromBody(404, bare, null).requestId, null);
    // Not ours (a proxy's page): no id of the service's to quote.
    assert.equal(ApiError.fromBody(502, '<html>bad gateway</html>', null).requestId, null);
    const odd = JSON.stringify({ error: { code: 'not_found', message: 'No.', requestId: 7 } });
    assert.equal(ApiError.fromBody(404, odd, null).requestId, null);
  });
});

describe('requestIdOf', () => {
  it('keeps exactly the sane ids, and makes a new sane one for anything else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 140 }),
          fc.stringMatching(/^[A-Za-z0-9._~:/+=@-]{1,128}$/),
          fc.string({ unit: 'binary', maxLength: 10 }),
        ),
        (sent) => {
          const id = requestIdOf(sent);
          assert.match(id, SANE);
          if (SANE.test(sent)) assert.equal(id, sent);
          else assert.match(id, UUID);
        },
      ),
    );
    assert.match(requestIdOf(undefined), UUID);
    assert.match(requestIdOf(['a', 'b']), UUID);
  });
});

describe("the service's log lines", { skip: SCALE ? 'reads an embedded data dir' : false }, () => {
  it('carry the id of the request they are about', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'filehost-reqid-'));
    const service = await spawnService({ FILEHOST_DATA_DIR: dataDir, FILEHOST_LOG_LEVEL: 'warn' });
    try {
      // The storage gone: `/readyz` logs why at `warn`, from the request's own logger.
      const blobs = join(dataDir, 'storage', 'blobs');
      await rename(blobs, `${blobs}.away`);
      const sent = 'report-1234';
      const response = await fetch(`${service.apiUrl}/readyz`, {
        headers: { 'X-Request-Id': sent },
      });
      assert.equal(response.status, 503);
      await rename(`${blobs}.away`, blobs);
      const deadline = Date.now() + 10_000;
      let line: { reqId?: string; msg?: string } | undefined;
      while (!line && Date.now() < deadline) {
        line = service
          .output()
          .split('\n')
          .filter((text) => text.startsWith('{'))
          .map((text) => JSON.parse(text) as { reqId?: string; msg?: string })
          .find((entry) => entry.msg === 'not ready');
        if (!line) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(line, `no line about the request in:\n${service.output()}`);
      assert.equal(line.reqId, sent);
    } finally {
      service.process.kill('SIGTERM');
      await service.exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
