import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type {
  FileListResponse,
  FileRecord,
  SignResponse,
  UploadResponse,
  UploadState,
} from '../../../src/api/types.js';
import {
  assertSameBytes,
  type ChildService,
  json,
  patternBytes,
  spawnService,
  storedFiles,
} from '../../helpers/service.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

const MiB = 1024 * 1024;

/**
 * The service is a real child process killed with SIGKILL (by the test, or by itself at
 * a named crash point) and started again on the same data directory.
 */
describe('crashes: kill -9 at any moment never leaves a wrong ready file', () => {
  let dataDir: string;
  let service: ChildService | undefined;
  const env = () => ({
    FILEHOST_DATA_DIR: dataDir,
    FILEHOST_PART_SIZE: String(5 * MiB),
    // Its webhook receiver listens on loopback: a private target, allowed here.
    FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
  });

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-crash-'));
  });
  after(async () => {
    service?.process.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  async function start(extra: Record<string, string> = {}): Promise<ChildService> {
    service = await spawnService({ ...env(), ...extra });
    return service;
  }

  async function kill(current: ChildService): Promise<void> {
    current.process.kill('SIGKILL');
    const exit = await current.exited;
    assert.equal(exit.signal, 'SIGKILL');
  }

  const auth = (s: ChildService) => ({ Authorization: `Bearer ${s.secretKey}` });

  async function upload(s: ChildService, bytes: Uint8Array<ArrayBuffer>, name: string) {
    return json<UploadResponse>(
      await fetch(`${s.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: { ...auth(s), 'X-Filename': name },
        body: bytes,
      }),
      201,
    );
  }

  async function listAll(s: ChildService): Promise<FileRecord[]> {
    return (
      await json<FileListResponse>(
        await fetch(`${s.apiUrl}/v1/files?limit=100`, { headers: auth(s) }),
      )
    ).files;
  }

  const survivors: { file: UploadResponse; bytes: Uint8Array<ArrayBuffer> }[] = [];

  async function checkSurvivors(s: ChildService): Promise<void> {
    for (const { file, bytes } of survivors) {
      const response = await fetch(`${s.cdnUrl}/${file.id}`);
      assert.equal(response.status, 200, `ready file ${file.name} lost`);
      assertSameBytes(await response.arrayBuffer(), bytes);
    }
  }

  it('keeps every ready file across a kill -9 and restart', async () => {
    const s = await start();
    for (let index = 0; index < 3; index++) {
      const bytes = patternBytes(200_000 + index, index + 1);
      survivors.push({ file: await upload(s, bytes, `keep-${index}.bin`), bytes });
    }
    await kill(s);
    const again = await start();
    await checkSurvivors(again);
    await kill(again);
  });

  it('drops a one-request upload killed mid-body, and keeps nothing of it', async () => {
    const s = await start();
    const before = await storedFiles(dataDir);
    const { hostname, port } = new URL(s.apiUrl);
    const head = [
      'POST /v1/upload HTTP/1.1',
      'Host: localhost',
      `Authorization: Bearer ${s.secretKey}`,
      'Content-Type: application/octet-stream',
      `Content-Length: ${50 * MiB}`,
      '',
      '',
    ].join('\r\n');
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    socket.on('error', () => undefined);
    socket.write(head);
    socket.write(Buffer.alloc(8 * MiB, 1));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await kill(s);
    socket.destroy();

    const again = await start();
    assert.deepEqual(await storedFiles(dataDir), before);
    assert.equal((await listAll(again)).length, survivors.length);
    await checkSurvivors(again);
    await kill(again);
  });

  it('drops an upload whose bytes were stored but whose row was not yet ready', async () => {
    const s = await start({ FILEHOST_CRASH_AT: 'upload:stored' });
    const before = await storedFiles(dataDir);
    await assert.rejects(
      fetch(`${s.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: auth(s),
        body: patternBytes(1000),
      }),
    );
    const exit = await s.exited;
    assert.equal(exit.signal, 'SIGKILL');
    const again = await start();
    assert.deepEqual(await storedFiles(dataDir), before);
    assert.equal((await listAll(again)).length, survivors.length);
    await kill(again);
  });

  it('resumes a multi-step upload killed mid-part, and completes it with the right bytes', async () => {
    const s = await start();
    const bytes = patternBytes(12 * MiB, 21);
    const signed = await json<SignResponse>(
      await fetch(`${s.apiUrl}/v1/uploads/sign`, {
        method: 'POST',
        headers: { ...auth(s), 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'resume.bin', size: bytes.length }),
      }),
      201,
    );
    const [p1, p2] = signed.parts as [SignResponse['parts'][number], SignResponse['parts'][number]];
    await json(
      await fetch(p1.url, { method: 'PUT', headers: p1.headers, body: bytes.subarray(0, p1.size) }),
    );
    // Part 2 half-sent when the process dies.
    const url = new URL(p2.url);
    const socket = connect(
      Number(url.port),
      url.hostname === 'localhost' ? '127.0.0.1' : url.hostname,
    );
    socket.on('error', () => undefined);
    socket.write(
      `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(p2.headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')}Content-Length: ${p2.size}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(2 * MiB, 9));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await kill(s);
    socket.destroy();

    const again = await start();
    const state = await json<UploadState>(
      await fetch(`${again.apiUrl}/v1/uploads/${signed.id}`, { headers: auth(again) }),
    );
    assert.equal(state.status, 'pending');
    assert.deepEqual(
      state.parts.map((part) => part.etag !== null),
      [true, false, false],
    );
    for (const part of state.parts.filter((p) => p.etag === null)) {
      const start = (part.partNumber - 1) * state.partSize;
      const response = await fetch(part.url as string, {
        method: 'PUT',
        headers: part.headers,
        body: bytes.subarray(start, start + part.size),
      });
      assert.equal(response.status, 200);
      await response.arrayBuffer();
    }
    const record = await json<FileRecord>(
      await fetch(`${again.apiUrl}/v1/uploads/${signed.id}/complete`, {
        method: 'POST',
        headers: auth(again),
      }),
    );
    assertSameBytes(await (await fetch(`${again.cdnUrl}/${record.id}`)).arrayBuffer(), bytes);
    survivors.push({
      file: {
        id: record.id,
        name: record.name,
        size: record.size,
        type: record.mime,
        url: record.url,
        visibility: record.visibility,
        deleteAt: record.deleteAt,
      },
      bytes,
    });
    await kill(again);
  });

  it('finishes a completion killed after the bytes moved but before the row turned ready', async () => {
    const s = await start({ FILEHOST_CRASH_AT: 'complete:renamed' });
    const bytes = patternBytes(3000, 33);
    const signed = await json<SignResponse>(
      await fetch(`${s.apiUrl}/v1/uploads/sign`, {
        method: 'POST',
        headers: { ...auth(s), 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'c.bin', size: bytes.length }),
      }),
      201,
    );
    const part = signed.parts[0] as SignResponse['parts'][number];
    await json(await fetch(part.url, { method: 'PUT', headers: part.headers, body: bytes }));
    await assert.rejects(
      fetch(`${s.apiUrl}/v1/uploads/${signed.id}/complete`, { method: 'POST', headers: auth(s) }),
    );
    await s.exited;

    const again = await start();
    const before = await json<FileRecord>(
      await fetch(`${again.apiUrl}/v1/files/${signed.id}`, { headers: auth(again) }),
    );
    assert.equal(before.status, 'pending');
    assert.equal((await fetch(`${again.cdnUrl}/${signed.id}`)).status, 404);
    const record = await json<FileRecord>(
      await fetch(`${again.apiUrl}/v1/uploads/${signed.id}/complete`, {
        method: 'POST',
        headers: auth(again),
      }),
    );
    assert.equal(record.status, 'ready');
    assertSameBytes(await (await fetch(`${again.cdnUrl}/${signed.id}`)).arrayBuffer(), bytes);
    await kill(again);
  });

  it('finishes a delete killed after the row was marked: gone, and its bytes removed at restart', async () => {
    const seed = await start();
    const bytes = patternBytes(5000, 44);
    const doomed = await upload(seed, bytes, 'doomed.bin');
    await kill(seed);
    const withDoomed = await storedFiles(dataDir);

    const s = await start({ FILEHOST_CRASH_AT: 'delete:marked' });
    await assert.rejects(
      fetch(`${s.apiUrl}/v1/files/${doomed.id}`, { method: 'DELETE', headers: auth(s) }),
    );
    await s.exited;
    assert.deepEqual(await storedFiles(dataDir), withDoomed, 'bytes still there after the crash');

    const again = await start();
    assert.equal((await fetch(`${again.cdnUrl}/${doomed.id}`)).status, 404);
    assert.equal(
      (await fetch(`${again.apiUrl}/v1/files/${doomed.id}`, { headers: auth(again) })).status,
      404,
    );
    const after = await storedFiles(dataDir);
    assert.equal(after.length, withDoomed.length - 1);
    assert.ok(!after.some((path) => path.endsWith(doomed.id)));
    await checkSurvivors(again);
    await kill(again);
  });

  it('refuses to run two services on one data directory', async () => {
    const s = await start();
    await assert.rejects(spawnService(env()), /in use by another filehost service/);
    await kill(s);
  });

  it('starts again at once after SIGKILL, whatever process holds the old id', async () => {
    const s = await start();
    s.process.kill('SIGKILL');
    await s.exited;
    // The operating system dropped the lock with the process: no waiting, no stale file.
    const again = await start();
    await kill(again);
    // A lock file of the old kind naming a live process (pid 1 always is) locks nothing.
    await writeFile(join(dataDir, 'service.lock'), '1');
    await kill(await start());
  });

  it('delivers the event of a change committed just before a kill -9, once started again', async () => {
    const receiver = await startReceiver();
    try {
      const s = await start({
        FILEHOST_CRASH_AT: 'event:recorded',
        FILEHOST_WEBHOOK_URL: receiver.url,
      });
      const secret = /Webhook\s+\S+\s+\(secret (\S+)\)/.exec(s.output())?.[1];
      assert.ok(secret, s.output());
      await assert.rejects(
        fetch(`${s.apiUrl}/v1/upload`, {
          method: 'POST',
          headers: { ...auth(s), 'X-Filename': 'told.txt' },
          body: patternBytes(1000),
        }),
      );
      assert.equal((await s.exited).signal, 'SIGKILL');
      // Killed between the commit and any attempt: nothing was sent yet.
      assert.equal(receiver.received.length, 0);
      const again = await start({ FILEHOST_WEBHOOK_URL: receiver.url });
      const [request] = await receiver.waitFor(1);
      assert.ok(request);
      const payload = receiver.verify(request, secret);
      assert.equal(payload.type, 'file.ready');
      assert.equal(payload.data.name, 'told.txt');
      const ready = await listAll(again);
      assert.ok(ready.some((file) => file.id === payload.data.id && file.status === 'ready'));
      await kill(again);
    } finally {
      await receiver.close();
    }
  });
});
