// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { SignResponse } from '../../src/api/types.js';
import { answerToBytes } from '../helpers/answer-to-bytes.js';
import { expectError, json, startTestService, type TestService } from '../helpers/service.js';

describe('bad input: documented 4xx, never a 500, a hang or a kept half file', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_IDLE_TIMEOUT: '1' });
  });
  after(() => t.close());

  it('answers malformed HTTP with the JSON error shape', async () => {
    for (const payload of [
      'GARBAGE\r\n\r\n',
      'GET /v1/files HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'POST /v1/upload HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'POST /v1/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
    ]) {
      const { text } = await answerToBytes(t.apiUrl, payload);
      assert.match(text, /^HTTP\/1\.1 400 /, payload.slice(0, 60));
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
      assert.equal(body.error.code, 'invalid_request');
    }
  });

  it('answers a whole request before the garbage that follows it on the connection', async () => {
    // The first request is a whole upload; the bytes after it do not parse. The upload's
    // 201 must be the first answer (the parse error's 400 jumped ahead of it, so a stored
    // file was reported as a malformed request).
    const upload = `POST /v1/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.secretKey}\r\nX-Filename: first.txt\r\nContent-Length: 5\r\n\r\nhello`;
    const { text } = await answerToBytes(t.apiUrl, `${upload}GARBAGE\r\n\r\n`, { keepOpenMs: 0 });
    assert.match(text, /^HTTP\/1\.1 201 /, text.slice(0, 80));
    const id = /"id":"([^"]+)"/.exec(text)?.[1];
    assert.ok(id, text);
    assert.equal((await t.api(`/v1/files/${id}`, { method: 'DELETE' })).status, 204);
  });

  it('answers an unknown Expect and CONNECT in the documented shape', async () => {
    for (const base of [t.apiUrl, t.cdnUrl]) {
      // Kept open until the server closes (Connection: close): Node drops a half-closed
      // connection before an answer that is still being made.
      const expect = await answerToBytes(
        base,
        'GET /nothing-here HTTP/1.1\r\nHost: x\r\nExpect: x-unknown\r\nConnection: close\r\n\r\n',
        { keepOpenMs: 0 },
      );
      assert.match(expect.text, /^HTTP\/1\.1 404 /, expect.text.slice(0, 60));
      const connect = await answerToBytes(
        base,
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
        { keepOpenMs: 0 },
      );
      assert.match(connect.text, /^HTTP\/1\.1 404 /, connect.text.slice(0, 60));
      const body = JSON.parse(connect.text.slice(connect.text.indexOf('\r\n\r\n') + 4));
      assert.equal(body.error.code, 'not_found');
    }
  });

  it('makes those refusals readable by the page that sent them (CORS), on the API and the CDN', async () => {
    const origin = 'http://localhost:5173';
    const tooLarge = `GET /v1/files HTTP/1.1\r\nHost: x\r\nOrigin: ${origin}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    const malformed = `GET /v1/files HTTP/1.1\r\nHost: x\r\nOrigin: ${origin}\r\nBad Header\r\n\r\n`;
    for (const payload of [tooLarge, malformed]) {
      const api = (await answerToBytes(t.apiUrl, payload)).text;
      assert.match(api, /^HTTP\/1\.1 4\d\d /);
      assert.match(api, new RegExp(`\r\nAccess-Control-Allow-Origin: ${origin}\r\n`));
      assert.match(api, /\r\nVary: Origin\r\n/);
      const cdn = (await answerToBytes(t.cdnUrl, payload)).text;
      assert.match(cdn, /\r\nAccess-Control-Allow-Origin: \*\r\n/);
    }
    // No Origin among the bytes: nothing to echo.
    const none = (await answerToBytes(t.apiUrl, `GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`))
      .text;
    assert.doesNotMatch(none, /Access-Control-Allow-Origin/i);
    assert.match(none, /\r\nVary: Origin\r\n/);
  });

  it('answers too much URL or header with 414 and 431, on the API and the CDN', async () => {
    for (const base of [t.apiUrl, t.cdnUrl]) {
      for (const [payload, status, code] of [
        [`GET /${'a'.repeat(9 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, 'uri_too_long'],
        [`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, 'uri_too_long'],
        [
          `GET /v1/files HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
          431,
          'headers_too_large',
        ],
      ] as const) {
        const { text } = await answerToBytes(base, payload);
        assert.match(text, new RegExp(`^HTTP/1\\.1 ${status} `), `${base} ${payload.slice(0, 40)}`);
        const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
        assert.equal(body.error.code, code);
        assert.equal(typeof body.error.message, 'string');
      }
    }
  });

  it('answers what the router refuses in the documented shape, never with its own codes', async () => {
    for (const [url, status, code] of [
      [`${t.apiUrl}/v1/files/%zz`, 400, 'invalid_request'],
      [`${t.cdnUrl}/%E0%A4%A`, 400, 'invalid_request'],
      [`${t.apiUrl}/v1/files/${'a'.repeat(600)}`, 404, 'not_found'],
      [`${t.cdnUrl}/${'a'.repeat(600)}`, 404, 'not_found'],
      [`${t.cdnUrl}/${'a'.repeat(9000)}`, 414, 'uri_too_long'],
    ] as const) {
      const response = await fetch(url, { headers: { Authorization: `Bearer ${t.secretKey}` } });
      const text = await response.text();
      assert.equal(response.status, status, `${url.slice(0, 60)}: ${text.slice(0, 200)}`);
      assert.doesNotMatch(text, /FST_/);
      assert.equal(JSON.parse(text).error.code, code);
    }
  });

  it('refuses a header that may appear once when it is sent twice', async () => {
    const auth = `Authorization: Bearer ${t.secretKey}\r\n`;
    for (const [base, payload] of [
      [
        t.apiUrl,
        `GET /v1/files HTTP/1.1\r\nHost: x\r\n${auth}Authorization: Bearer sk_live_other\r\n\r\n`,
      ],
      [
        t.apiUrl,
        `POST /v1/upload HTTP/1.1\r\nHost: x\r\n${auth}X-Filename: a\r\nX-Filename: b\r\nContent-Length: 1\r\n\r\nx`,
      ],
      [
        t.apiUrl,
        `POST /v1/upload HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: text/plain\r\nContent-Type: text/html\r\nContent-Length: 1\r\n\r\nx`,
      ],
      [t.cdnUrl, 'GET /someid HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\nRange: bytes=2-3\r\n\r\n'],
    ] as const) {
      const { text } = await answerToBytes(base, payload);
      assert.match(text, /^HTTP\/1\.1 400 /, payload.slice(0, 60));
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
      assert.equal(body.error.code, 'invalid_request');
      assert.match(body.error.message, /once/);
    }
    assert.deepEqual(await t.stored(), await t.stored());
  });

  it('cuts a stalled upload after the idle timeout and keeps nothing of it', async () => {
    const before = await t.stored();
    const head = [
      'POST /v1/upload HTTP/1.1',
      'Host: localhost',
      `Authorization: Bearer ${t.secretKey}`,
      'Content-Type: application/octet-stream',
      'Content-Length: 1000000',
      '',
      '',
    ].join('\r\n');
    const { closedAfterMs } = await answerToBytes(
      t.apiUrl,
      Buffer.concat([Buffer.from(head), Buffer.alloc(1000)]),
      {
        keepOpenMs: 5_000,
      },
    );
    assert.ok(closedAfterMs >= 900 && closedAfterMs < 4_000, `closed after ${closedAfterMs} ms`);
    // Give the handler a moment to clean up after the cut.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(await t.stored(), before);
    const list = await json<{ files: unknown[] }>(await t.api('/v1/files'));
    assert.equal(list.files.length, 0);
  });

  it('ends a multipart upload cut inside a part it skips, keeping no receiving row', async () => {
    const boundary = 'cut-here';
    const head = [
      'POST /v1/upload HTTP/1.1',
      'Host: localhost',
      `Authorization: Bearer ${t.secretKey}`,
      `Content-Type: multipart/form-data; boundary=${boundary}`,
      'Content-Length: 100000',
      '',
      '',
    ].join('\r\n');
    // Another form's file input (read past, not kept) that never finishes.
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="other"; filename="o.bin"\r\n\r\n${'x'.repeat(500)}`;
    await answerToBytes(t.apiUrl, head + body, { keepOpenMs: 5_000 });
    // The handler saw the cut and cleaned up (it waited for an 'end' that never came).
    const deadline = Date.now() + 5_000;
    let receiving = await t.service.context.db.listReceiving(10);
    while (receiving.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      receiving = await t.service.context.db.listReceiving(10);
    }
    assert.deepEqual(receiving, []);
  });

  it('does not cut a slow upload that keeps moving', async () => {
    const chunks = 6;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === chunks) {
          controller.close();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 400));
        sent++;
        controller.enqueue(new Uint8Array(1000).fill(sent));
      },
    });
    // 6 chunks, 0.4 s apart: 2.4 s in all, well past the 1 s idle timeout.
    const response = await t.api('/v1/upload', { method: 'POST', body });
    const stored = await json<{ size: number }>(response, 201);
    assert.equal(stored.size, 6000);
  });

  it('answers absurd or hostile JSON with invalid_request', async () => {
    const sign = (body: string) =>
      t.api('/v1/uploads/sign', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
    for (const body of [
      '{"size": 1e999}',
      '{"size": "1"}',
      '{"__proto__": {"size": 1}}',
      '{"size": 10, "metadata": {"__proto__": "x"}}',
      `{"size": 10, "name": ${JSON.stringify('a'.repeat(10))}, "metadata": ${'['.repeat(5000)}`,
      'null',
      'true',
      '\u0000',
    ]) {
      const response = await sign(body);
      assert.equal(response.status, 400, body.slice(0, 40));
      await response.arrayBuffer();
    }
  });

  it('survives every kind of cursor and id, unknown methods and odd paths without a 500', async () => {
    const probes = [
      '/v1/files?cursor=%00',
      '/v1/files?cursor=%E0%A4%A',
      '/v1/files?limit=%FF',
      '/v1/files/%00',
      '/v1/files/..%2F..%2Fetc%2Fpasswd',
      '/v1/uploads/%2e%2e/complete',
      `/v1/files?cursor=${'9'.repeat(5000)}_x`,
    ];
    for (const path of probes) {
      const response = await t.api(path);
      assert.ok(response.status >= 400 && response.status < 500, `${path}: ${response.status}`);
      await response.arrayBuffer();
    }
  });

  it('keeps working after a client disconnects mid-part', async () => {
    const signed = await json<SignResponse>(await t.sign({ name: 'a', size: 100_000 }), 201);
    const part = signed.parts[0] as SignResponse['parts'][number];
    const url = new URL(part.url);
    const head = [
      `PUT ${url.pathname}${url.search} HTTP/1.1`,
      'Host: localhost',
      ...Object.entries({ 'Content-Type': 'application/octet-stream', ...part.headers }).map(
        ([name, value]) => `${name}: ${value}`,
      ),
      'Content-Length: 100000',
      '',
      '',
    ].join('\r\n');
    const { hostname, port } = new URL(t.apiUrl);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
      socket.write(Buffer.concat([Buffer.from(head), Buffer.alloc(30_000)]), () => {
        socket.destroy();
        resolve();
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expectError(await t.complete(signed.id), 409, 'upload_incomplete', {
      missingParts: [1],
      mismatchedParts: [],
    });
    const resent = await fetch(part.url, {
      method: 'PUT',
      headers: part.headers,
      body: new Uint8Array(100_000),
    });
    assert.equal(resent.status, 200);
    const done = await t.complete(signed.id);
    assert.equal(done.status, 200);
    await done.arrayBuffer();
  });
});
