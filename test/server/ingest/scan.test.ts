// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { EventListResponse } from '../../../src/api/events.js';
import type {
  CompleteBatchResponse,
  FileRecord,
  SignResponse,
  UploadResponse,
  UploadState,
} from '../../../src/api/types.js';
import {
  EICAR,
  EICAR_SIGNATURE,
  MARKER,
  MARKER_SIGNATURE,
  startClamd,
  type TestClamd,
} from '../../helpers/clamd.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import {
  assertSameBytes,
  expectError,
  json,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../../helpers/service.js';
import { partSlice } from '../../helpers/signed-parts.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

/**
 * Every file is scanned by a real clamd (its own database: EICAR by MD5, and a body
 * signature of ours) before it is ready, on the one-request upload, the complete and the
 * batch complete; clamd down, silent or killed mid-scan leaves the upload pending.
 */
const clamd = await startClamd();

describe('safe ingest: malware scanning', { skip: 'skip' in clamd ? clamd.skip : false }, () => {
  const daemon = clamd as TestClamd;
  let t: TestService;
  before(async () => {
    t = await startTestService({
      FILEHOST_CLAMD: daemon.socket,
      FILEHOST_CLAMD_TIMEOUT: '2',
      FILEHOST_PART_SIZE: String(PART),
    });
  });
  after(async () => {
    await t?.close();
    await daemon.stop();
  });

  /** A multi-step upload with every part sent, not completed yet. */
  async function signAndSend(bytes: Uint8Array<ArrayBuffer>, name: string): Promise<SignResponse> {
    const signed = await json<SignResponse>(
      await t.sign({ name, size: bytes.length, type: 'application/octet-stream' }),
      201,
    );
    await Promise.all(
      signed.parts.map(async (part) =>
        partAccepted(await t.putPart(part, partSlice(bytes, signed, part.partNumber)), part),
      ),
    );
    return signed;
  }

  async function oneRequest(bytes: Uint8Array<ArrayBuffer>, name: string): Promise<Response> {
    return t.api('/v1/upload', {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': name },
      body: bytes,
    });
  }

  async function latestEvent() {
    const { events } = await json<EventListResponse>(await t.api('/v1/events?limit=1'));
    return events[0];
  }

  it('makes a clean file ready only after scanning it, and says when', async () => {
    const before = Date.now();
    const bytes = patternBytes(300_000, 4);
    const uploaded = await json<UploadResponse>(await oneRequest(bytes, 'clean.bin'), 201);
    const record = await json<FileRecord>(await t.api(`/v1/files/${uploaded.id}`));
    assert.equal(record.status, 'ready');
    assert.ok(record.scannedAt !== null && record.scannedAt >= before, 'scannedAt set');
    assertSameBytes(await (await fetch(uploaded.url as string)).arrayBuffer(), bytes);

    const signed = await signAndSend(patternBytes(2 * PART + 7, 5), 'clean-parts.bin');
    const completed = await json<FileRecord>(await t.complete(signed.id));
    assert.equal(completed.status, 'ready');
    assert.ok(completed.scannedAt !== null && completed.scannedAt >= before);
  });

  it('refuses EICAR sent in one request: 422 infected, nothing kept, file.infected recorded', async () => {
    const stored = await t.stored();
    const error = await expectError(await oneRequest(EICAR, 'eicar.com'), 422, 'infected', {
      signature: EICAR_SIGNATURE,
    });
    assert.match(error.message, /Eicar/);
    assert.deepEqual(await t.stored(), stored);
    const event = await latestEvent();
    assert.equal(event?.type, 'file.infected');
    assert.equal(event && 'signature' in event.data && event.data.signature, EICAR_SIGNATURE);
    assert.equal(event?.data.name, 'eicar.com');
    const listed = await json<{ files: FileRecord[] }>(await t.api('/v1/files?limit=100'));
    assert.ok(!listed.files.some((file) => file.id === event?.data.id));
  });

  it('refuses EICAR sent as a form, and a large body with the signature at its end', async () => {
    const stored = await t.stored();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(EICAR)]), 'eicar.com');
    await expectError(await t.api('/v1/upload', { method: 'POST', body: form }), 422, 'infected', {
      signature: EICAR_SIGNATURE,
    });
    // Over 1 MiB: scanned after it is stored, read back, rather than as it arrives.
    const large = patternBytes(3 * MiB, 12);
    large.set(MARKER, large.length - MARKER.length);
    await expectError(await oneRequest(large, 'large.bin'), 422, 'infected', {
      signature: MARKER_SIGNATURE,
    });
    assert.deepEqual(await t.stored(), stored);
  });

  it('refuses a multi-part upload with the signature deep in its last part, and keeps nothing', async () => {
    const stored = await t.stored();
    const bytes = patternBytes(2 * PART + 100_000, 6);
    bytes.set(MARKER, 2 * PART + 50_000);
    const signed = await signAndSend(bytes, 'setup.exe');
    await expectError(await t.complete(signed.id), 422, 'infected', {
      signature: MARKER_SIGNATURE,
    });
    await expectError(await t.api(`/v1/files/${signed.id}`), 404, 'not_found');
    await expectError(await t.complete(signed.id), 404, 'not_found');
    assert.equal((await fetch(`${t.cdnUrl}/${signed.id}`)).status, 404);
    assert.deepEqual(await t.stored(), stored);
    const event = await latestEvent();
    assert.equal(event?.type, 'file.infected');
    assert.equal(event?.data.id, signed.id);
  });

  it('completes a batch file by file: the clean one ready, the infected one refused', async () => {
    const clean = await signAndSend(patternBytes(40_000, 7), 'a.bin');
    const infected = await signAndSend(new Uint8Array(EICAR), 'b.com');
    const { results } = await json<CompleteBatchResponse>(
      await t.completeMany([{ id: clean.id }, { id: infected.id }]),
    );
    assert.equal((results[0] as { file: FileRecord }).file.status, 'ready');
    assert.ok((results[0] as { file: FileRecord }).file.scannedAt);
    assert.deepEqual(
      { ...results[1]?.error, message: undefined },
      { code: 'infected', status: 422, signature: EICAR_SIGNATURE, message: undefined },
    );
  });

  it('answers 503 while clamd is down, keeps the upload pending, and completes it once clamd is back', async () => {
    const bytes = patternBytes(PART + 1, 8);
    const signed = await signAndSend(bytes, 'later.bin');
    await daemon.kill();
    try {
      const response = await t.complete(signed.id);
      assert.equal(response.headers.get('retry-after'), '10');
      await expectError(response, 503, 'unavailable');
      await expectError(await oneRequest(patternBytes(10, 9), 'x.bin'), 503, 'unavailable');
      const state = await json<UploadState>(await t.state(signed.id));
      assert.equal(state.status, 'pending');
      const record = await json<FileRecord>(await t.api(`/v1/files/${signed.id}`));
      assert.equal(record.status, 'pending');
      assert.equal((await fetch(publicUrlOf(record))).status, 404);
    } finally {
      await daemon.start();
    }
    const ready = await json<FileRecord>(await t.complete(signed.id));
    assert.equal(ready.status, 'ready');
    assert.ok(ready.scannedAt);
    assertSameBytes(await (await fetch(publicUrlOf(ready))).arrayBuffer(), bytes);
  });

  it('answers 503 when clamd does not move for the timeout, and completes later', async () => {
    const signed = await signAndSend(patternBytes(3 * MiB, 10), 'slow.bin');
    daemon.pause();
    const started = Date.now();
    try {
      await expectError(await t.complete(signed.id), 503, 'unavailable');
    } finally {
      daemon.resume();
    }
    // FILEHOST_CLAMD_TIMEOUT=2: silent for 2 s (twice at most: connecting, then answering).
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.equal((await json<FileRecord>(await t.api(`/v1/files/${signed.id}`))).status, 'pending');
    assert.equal((await json<FileRecord>(await t.complete(signed.id))).status, 'ready');
  });

  it('answers 503 when clamd is killed mid-scan, and the upload completes once it is back', async () => {
    const bytes = patternBytes(4 * PART, 11);
    const signed = await signAndSend(bytes, 'killed.bin');
    // Stopped, clamd takes the connection but not the stream: the scan is surely under way
    // when it is killed.
    daemon.pause();
    const answer = t.complete(signed.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await daemon.kill();
    try {
      await expectError(await answer, 503, 'unavailable');
      assert.equal(
        (await json<FileRecord>(await t.api(`/v1/files/${signed.id}`))).status,
        'pending',
      );
    } finally {
      await daemon.start();
    }
    const ready = await json<FileRecord>(await t.complete(signed.id));
    assert.equal(ready.status, 'ready');
    assertSameBytes(await (await fetch(publicUrlOf(ready))).arrayBuffer(), bytes);
  });
  it('scans an upload again from the store when clamd drops the kept connection its scan was on', async () => {
    // An upload before leaves a connection (a clamd session) open for the next one to take.
    await json<UploadResponse>(await oneRequest(patternBytes(1000, 13), 'first.bin'), 201);
    // The temp file looked for below must be the next scan's: not one clamd has not yet
    // removed after answering, nor one a clamd killed by an earlier test left behind.
    const tempFiles = async () =>
      (await readdir(daemon.streams)).filter((name) => name.endsWith('.tmp'));
    const before = new Set(await tempFiles());
    const stored = await t.stored();
    const half = 300_000;
    const bytes = patternBytes(2 * half, 14);
    // The signature straddles the halves: only a scan of the whole stored file finds it.
    bytes.set(MARKER, half - 10);
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 1) await gate;
        if (sent === 2) {
          controller.close();
          return;
        }
        controller.enqueue(bytes.slice(sent * half, (sent + 1) * half));
        sent++;
      },
    });
    // A small body with its length: scanned as it is stored, on that kept connection.
    const answer = t.api('/v1/upload', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(bytes.length),
        'X-Filename': 'dropped.bin',
      },
      body,
    });
    // The first half is with clamd (a stream it receives is a file in its temp dir) when
    // clamd goes and comes back: the connection the scan was on is gone.
    await until(async () => (await tempFiles()).some((name) => !before.has(name)));
    await daemon.kill();
    await daemon.start();
    release();
    await expectError(await answer, 422, 'infected', { signature: MARKER_SIGNATURE });
    assert.deepEqual(await t.stored(), stored);
  });
});

async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
