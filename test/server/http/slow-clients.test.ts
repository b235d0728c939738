import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { SignResponse } from '../../../src/api/types.js';
import { json, patternBytes, startTestService, type TestService } from '../../helpers/service.js';

/** A raw connection to `url`, with what it receives collected and whether it closed. */
function rawClient(url: string): {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
} {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => received, closed };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Clients that hold connections for nothing: a JSON body trickling in, connections opened
 * without end. Uploads, however slow, are not cut while their bytes keep moving.
 */
describe('slow and greedy clients', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_JSON_BODY_TIMEOUT: '2' });
  });
  after(() => t.close());

  it('answers a JSON body that trickles in 408 request_timeout at its deadline, and closes', async () => {
    const client = rawClient(t.apiUrl);
    const body = JSON.stringify({ name: 'slow.bin', size: 10 });
    client.socket.write(
      `POST /v1/uploads/sign HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.secretKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const started = Date.now();
    // A byte every 300 ms: it would take 9 s.
    for (let index = 0; index < body.length && !client.socket.destroyed; index++) {
      if (client.received()) break;
      client.socket.write(body[index] as string);
      await sleep(300);
    }
    await Promise.race([client.closed, sleep(10_000)]);
    const waited = Date.now() - started;
    assert.match(client.received(), /^HTTP\/1\.1 408 /);
    assert.match(client.received(), /"code":"request_timeout"/);
    assert.match(client.received(), /connection: close/i);
    assert.ok(waited >= 1900 && waited < 8000, `answered after ${waited} ms`);
    assert.ok(client.socket.destroyed || client.socket.readableEnded, 'the connection closed');
  });

  it('does not cut a part PUT that is slow but moving, past the JSON deadline', async () => {
    const size = 64 * 1024;
    const signed = await json<SignResponse>(await t.sign({ name: 'steady.bin', size }), 201);
    const part = signed.parts[0] as SignResponse['parts'][number];
    const url = new URL(part.url);
    const client = rawClient(part.url);
    const headers = Object.entries(part.headers).map(([name, value]) => `${name}: ${value}\r\n`);
    client.socket.write(
      `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: x\r\n${headers.join('')}Content-Length: ${size}\r\n\r\n`,
    );
    // 16 chunks, one every 250 ms: 4 s, twice the JSON deadline.
    const bytes = patternBytes(size, 5);
    for (let offset = 0; offset < size; offset += 4096) {
      client.socket.write(bytes.subarray(offset, offset + 4096));
      await sleep(250);
    }
    const deadline = Date.now() + 5000;
    while (!client.received().includes('\r\n\r\n') && Date.now() < deadline) await sleep(20);
    assert.match(client.received(), /^HTTP\/1\.1 200 /);
    client.socket.destroy();
  });
});

describe('connections per client address', () => {
  let t: TestService;
  before(async () => {
    // A service of its own: no connection of another test (fetch keeps them alive) counts.
    t = await startTestService({ FILEHOST_MAX_CONNECTIONS_PER_CLIENT: '8' });
  });
  after(() => t.close());

  it('holds at most the cap of connections from one address; the next is closed at once', async () => {
    const held = Array.from({ length: 8 }, () => rawClient(t.apiUrl));
    await sleep(200);
    const over = rawClient(t.apiUrl);
    await Promise.race([over.closed, sleep(2000)]);
    assert.ok(over.socket.destroyed, 'the ninth connection is closed');
    assert.ok(
      held.every((client) => !client.socket.destroyed),
      'the eight stay',
    );
    // One of them gone, another may come.
    held[0]?.socket.destroy();
    await held[0]?.closed;
    await sleep(100);
    const response = await fetch(`${t.apiUrl}/v1/files`, {
      headers: { Authorization: `Bearer ${t.secretKey}`, Connection: 'close' },
    });
    assert.equal(response.status, 200);
    for (const client of held) client.socket.destroy();
  });
});
