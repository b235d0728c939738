// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { SignResponse } from '../../../src/api/types.js';
import { LOCAL_ONLY } from '../../helpers/scale-mode.js';
import {
  expectError,
  json,
  patternBytes,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A sender on a raw socket: it writes a request's head, then its body as slowly as it is
 * told, and collects what comes back.
 */
class Sender {
  readonly socket: Socket;
  private text = '';
  readonly closed: Promise<void>;

  constructor(url: string) {
    this.socket = connect(Number(new URL(url).port), '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => {
      this.text += chunk;
    });
    this.socket.on('error', () => {});
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  get answered(): boolean {
    return this.text.includes('\r\n\r\n');
  }

  head(method: string, path: string, headers: Record<string, string | number>): void {
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    this.socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\n${lines.join('')}\r\n`);
  }

  /** Writes `bytes` one byte every `everyMs` until an answer comes or `maxMs` passes. */
  async drip(bytes: Uint8Array | string, everyMs: number, maxMs: number): Promise<void> {
    const data = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
    const until = Date.now() + maxMs;
    for (let index = 0; index < data.length && Date.now() < until; index++) {
      if (this.answered || this.socket.destroyed) return;
      this.socket.write(data.subarray(index, index + 1));
      await sleep(everyMs);
    }
  }

  /** The answer: its status line, headers (lower-case) and JSON body. */
  async answer(waitMs: number): Promise<{ status: number; headers: string; body: unknown }> {
    const until = Date.now() + waitMs;
    while (Date.now() < until) {
      const end = this.text.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = this.text.slice(0, end);
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? Number.NaN);
        const body = this.text.slice(end + 4);
        if (Number.isFinite(length) && Buffer.byteLength(body, 'latin1') >= length) {
          return {
            status: Number(head.slice(9, 12)),
            headers: head.toLowerCase(),
            body: JSON.parse(Buffer.from(body, 'latin1').toString('utf8')),
          };
        }
      }
      await sleep(25);
    }
    throw new Error(`no whole answer within ${waitMs} ms; received: ${this.text.slice(0, 200)}`);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** What a stalled body is answered: 408, the documented body, and the connection closes. */
function assertStallAnswer(
  answer: { status: number; headers: string; body: unknown },
  windowSeconds: number,
): void {
  assert.equal(answer.status, 408);
  assert.match(answer.headers, /\r\nconnection: close/);
  const { error } = answer.body as { error: Record<string, unknown> };
  assert.equal(error.code, 'request_timeout');
  assert.equal(error.seconds, windowSeconds);
  assert.match(String(error.message), /less than 16 KiB in \d+ s; nothing was kept/);
}

function multipartFile(boundary: string, field: string, name: string): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
}

/**
 * decisions.md, "Slow senders hold nothing": a body that brings fewer than 16 KiB in any
 * 30 s once its headers are in is ended with 408, nothing of it kept, and what it reserved
 * is given back at once (not at the sweeper's next pass).
 */
describe('slow senders, at the default 30-second window', () => {
  let t: TestService;
  before(async () => {
    // A quota that the dripping body's reservation nearly fills: what it holds is visible.
    t = await startTestService({ FILEHOST_STORAGE_QUOTA: '1000000' });
  });
  after(() => t.close());

  it('ends a one-request upload that sends a byte every 2 s, and gives its room back at once', async () => {
    const sender = new Sender(t.apiUrl);
    sender.head('POST', '/v1/upload', {
      Authorization: `Bearer ${t.secretKey}`,
      'Content-Type': 'application/octet-stream',
      'X-Filename': 'drip.bin',
      'Content-Length': 900_000,
    });
    const started = Date.now();
    const dripping = sender.drip(patternBytes(900_000, 3), 2000, 90_000);
    // While it drips, its reservation holds the room: another upload does not fit.
    await sleep(1500);
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: patternBytes(200_000, 4) }),
      403,
      'quota_exceeded',
    );
    const answer = await sender.answer(90_000);
    const waited = Date.now() - started;
    assertStallAnswer(answer, 30);
    // The window is 30 s: not before it, and not much after (the window slides by 1 s).
    assert.ok(waited >= 29_000 && waited < 60_000, `answered after ${waited} ms`);
    // At once: the same upload now fits, long before any sweep.
    const after = await t.api('/v1/upload', { method: 'POST', body: patternBytes(200_000, 4) });
    assert.equal(after.status, 201, await after.clone().text());
    await Promise.race([sender.closed, sleep(10_000)]);
    assert.ok(sender.socket.destroyed || sender.socket.readableEnded, 'the connection closed');
    sender.close();
    await dripping;
    const kept = (await json<{ files: { name: string }[] }>(await t.api('/v1/files'))).files;
    assert.deepEqual(
      kept.map((file) => file.name),
      ['upload'],
    );
  });
});

describe('slow senders, with the window shortened to 2 s', () => {
  const WINDOW = 2;
  let t: TestService;
  before(async () => {
    t = await startTestService({
      FILEHOST_BODY_PROGRESS_WINDOW: String(WINDOW),
      FILEHOST_STORAGE_QUOTA: '1000000',
    });
  });
  after(() => t.close());

  /** Room for `size` bytes now: the project's quota is not held by anything left behind. */
  async function roomFor(size: number): Promise<void> {
    const response = await t.api('/v1/upload', { method: 'POST', body: patternBytes(size, 9) });
    assert.equal(response.status, 201, await response.clone().text());
    const { id } = (await response.json()) as { id: string };
    assert.equal((await t.api(`/v1/files/${id}`, { method: 'DELETE' })).status, 204);
  }

  it('ends a multipart upload whose file part stalls, keeping nothing', async () => {
    const before = await t.stored();
    const boundary = 'slowslowslow';
    const sender = new Sender(t.apiUrl);
    const opening = multipartFile(boundary, 'file', 'stall.bin');
    sender.head('POST', '/v1/upload', {
      Authorization: `Bearer ${t.secretKey}`,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': opening.length + 900_000 + boundary.length + 8,
    });
    // The part opens and 40 KiB arrive at once, then a byte every 500 ms.
    sender.socket.write(opening);
    sender.socket.write(patternBytes(40 * 1024, 5));
    const dripping = sender.drip(patternBytes(1000, 6), 500, 20_000);
    assertStallAnswer(await sender.answer(20_000), WINDOW);
    sender.close();
    await dripping;
    assert.deepEqual(await t.stored(), before);
    await roomFor(900_000);
  });

  it('ends a batch upload that stalls in its second file; the first is not kept either', async () => {
    const before = await t.stored();
    const boundary = 'batchbatch';
    const entries = [
      { name: 'a.bin', size: 20_000 },
      { name: 'b.bin', size: 800_000 },
    ];
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="files"\r\n\r\n${JSON.stringify(entries)}\r\n${multipartFile(boundary, 'file', 'a.bin')}`;
    const sender = new Sender(t.apiUrl);
    sender.head('POST', '/v1/upload/batch', {
      Authorization: `Bearer ${t.secretKey}`,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Transfer-Encoding': 'chunked',
    });
    const chunk = (data: string | Uint8Array) => {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : Buffer.from(data);
      sender.socket.write(`${bytes.length.toString(16)}\r\n`);
      sender.socket.write(bytes);
      sender.socket.write('\r\n');
    };
    chunk(head);
    chunk(patternBytes(20_000, 7));
    chunk(`\r\n${multipartFile(boundary, 'file', 'b.bin')}`);
    chunk(patternBytes(30_000, 8));
    // Then one byte a second, each its own chunk.
    const until = Date.now() + 20_000;
    while (!sender.answered && Date.now() < until && !sender.socket.destroyed) {
      chunk(Buffer.from([1]));
      await sleep(1000);
    }
    assertStallAnswer(await sender.answer(1000), WINDOW);
    sender.close();
    assert.deepEqual(await t.stored(), before);
    const listed = (await json<{ files: unknown[] }>(await t.api('/v1/files'))).files;
    assert.equal(listed.length, 0);
    await roomFor(900_000);
  });

  it('ends a part PUT that stalls; the part is not received', { skip: LOCAL_ONLY }, async () => {
    const size = 200_000;
    const signed = await json<SignResponse>(await t.sign({ name: 'parts.bin', size }), 201);
    const part = signed.parts[0] as SignResponse['parts'][number];
    const url = new URL(part.url);
    const sender = new Sender(part.url);
    sender.head('PUT', `${url.pathname}${url.search}`, { ...part.headers, 'Content-Length': size });
    sender.socket.write(patternBytes(20_000, 2));
    const dripping = sender.drip(patternBytes(1000, 3), 400, 20_000);
    assertStallAnswer(await sender.answer(20_000), WINDOW);
    sender.close();
    await dripping;
    // The part is missing: completing says so, and sending it whole afterwards works.
    await expectError(
      await t.api(`/v1/uploads/${signed.id}/complete`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      }),
      409,
      'upload_incomplete',
    );
    const whole = await fetch(part.url, {
      method: 'PUT',
      headers: part.headers,
      body: patternBytes(size, 2),
    });
    assert.equal(whole.status, 200);
  });

  it('does not end a body that is slow but brings more than 16 KiB in every window', async () => {
    const size = 96 * 1024;
    const sender = new Sender(t.apiUrl);
    sender.head('POST', '/v1/upload', {
      Authorization: `Bearer ${t.secretKey}`,
      'Content-Type': 'application/octet-stream',
      'X-Filename': 'steady.bin',
      'Content-Length': size,
    });
    // 4 KiB every 250 ms: 16 KiB a second, 32 KiB per window; 6 s in all, three windows.
    const bytes = patternBytes(size, 5);
    for (let offset = 0; offset < size; offset += 4096) {
      sender.socket.write(bytes.subarray(offset, offset + 4096));
      await sleep(250);
    }
    const answer = await sender.answer(10_000);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal((answer.body as { size: number }).size, size);
    sender.close();
  });
});
