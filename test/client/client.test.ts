// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CHECKSUM_HEADER, checksumHeaderValue } from '../../src/api/checksum.js';
import {
  ApiError,
  FilehostClient,
  type FileRecord,
  type RememberedUpload,
  type ResumeStore,
  retryDelayMs,
  type SignedPart,
  type SignResponse,
  withRetry,
} from '../../src/client/index.js';
import { fileSource } from '../../src/client/node.js';
import { partPutError } from '../../src/client/part-put-error.js';
import { bytesOfType } from '../helpers/bytes.js';
import { publicUrlOf } from '../helpers/public-url.js';
import { SCALE } from '../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  assertSameBytes,
  patternBytes,
  startTestService,
  type TestService,
} from '../helpers/service.js';

const MiB = 1024 * 1024;

describe('FilehostClient against the real service', () => {
  let t: TestService;
  let client: FilehostClient;
  let dir: string;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(5 * MiB) });
    client = new FilehostClient({ endpoint: t.apiUrl, apiKey: t.secretKey });
    dir = await mkdtemp(join(tmpdir(), 'filehost-client-'));
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A fetch that records every request it passes on. */
  function recordingFetch(
    log: Logged[],
    intercept?: (
      url: string,
      init: RequestInit | undefined,
      count: number,
    ) => Promise<Response | undefined>,
  ) {
    let count = 0;
    return async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input);
      log.push({ method: init?.method ?? 'GET', url, headers: init?.headers });
      const answer = await intercept?.(url, init, count++);
      return answer ?? fetch(input, init);
    };
  }

  it('uploads in one request and reads the file back', async () => {
    const bytes = patternBytes(1234);
    const uploaded = await client.upload(bytes, {
      name: 'notes ü.txt',
      type: 'text/plain',
      metadata: { user: 'u1' },
    });
    assert.equal(uploaded.name, 'notes ü.txt');
    assert.equal(uploaded.size, 1234);
    const record = await client.getFile(uploaded.id);
    assert.deepEqual(record.metadata, { user: 'u1' });
    assert.equal(record.status, 'ready');
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
    await client.deleteFile(uploaded.id);
    await assert.rejects(client.getFile(uploaded.id), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 404);
      assert.equal(error.code, 'not_found');
      return true;
    });
  });

  it('uploads a file from disk as a stream through the multi-step flow, with progress', async () => {
    const bytes = bytesOfType('video/mp4', 12 * MiB + 77, 5);
    const path = join(dir, 'video.bin');
    await writeFile(path, bytes);
    const progress: number[] = [];
    const log: Logged[] = [];
    const recording = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.secretKey,
      fetch: recordingFetch(log),
    });
    const record = await recording.uploadFile(await fileSource(path, 'video/mp4'), {
      metadata: { album: 'a' },
      onProgress: ({ bytesUploaded, bytesTotal }) => {
        assert.equal(bytesTotal, bytes.length);
        progress.push(bytesUploaded);
      },
    });
    assert.equal(record.status, 'ready');
    assert.equal(record.name, 'video.bin');
    assert.equal(record.mime, 'video/mp4');
    assert.deepEqual(record.metadata, { album: 'a' });
    assert.equal(log.filter((entry) => entry.method === 'PUT').length, 3);
    assert.equal(progress.at(-1), bytes.length);
    // Byte-level: many reports, and never more than the total.
    assert.ok(progress.length > 10, `${progress.length} progress reports`);
    assert.ok(progress.every((value) => value <= bytes.length));
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
  });

  it('resumes an upload by sending only the parts the service does not hold', async () => {
    const bytes = patternBytes(11 * MiB, 8);
    const signed = await client.sign({ name: 'resume.bin', size: bytes.length });
    const first = signed.parts[0];
    assert.ok(first);
    await client.uploadPart(first, bytes.subarray(0, first.size));
    const log: Logged[] = [];
    const resuming = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.secretKey,
      fetch: recordingFetch(log),
    });
    const record = await resuming.uploadFile(
      { size: bytes.length, slice: (start, end) => new Blob([bytes.subarray(start, end)]) },
      { resumeUploadId: signed.id },
    );
    const puts = log.filter((entry) => entry.method === 'PUT').map((entry) => partOf(entry));
    assert.deepEqual(puts.sort(), ['2', '3']);
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
  });

  it("with a page's publishable key, keeps the upload token and resumes with it", async () => {
    const bytes = patternBytes(11 * MiB, 9);
    // What a page's fetch sends: its Origin, which the publishable key requires.
    const pageFetch = (log: Logged[]) =>
      recordingFetch(log, async (url, init) =>
        url.startsWith(t.apiUrl)
          ? fetch(url, { ...init, headers: { ...init?.headers, Origin: ALLOWED_ORIGIN } })
          : undefined,
      );
    const remembered = new Map<string, RememberedUpload>();
    const store: ResumeStore = {
      get: async (key) => remembered.get(key),
      set: async (key, upload) => void remembered.set(key, upload),
      delete: async (key) => void remembered.delete(key),
    };
    const source = {
      size: bytes.length,
      fingerprint: async () => 'same-bytes',
      slice: (start: number, end: number) => new Blob([bytes.subarray(start, end)]),
    };
    // Cut off once the first part is in.
    const abort = new AbortController();
    const firstLog: Logged[] = [];
    const first = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.publishableKey,
      fetch: recordingFetch(firstLog, async (url, init) => {
        if (init?.method !== 'PUT') return pageFetch([])(url, init);
        const answer = await fetch(url, init);
        abort.abort(new Error('cut'));
        return answer;
      }),
    });
    await assert.rejects(
      first.uploadFile(source, { resume: store, signal: abort.signal, concurrency: 1 }),
    );
    const [kept] = [...remembered.values()];
    assert.match(kept?.token ?? '', /^[A-Za-z0-9_-]{22,}$/, 'the token is remembered');
    // The next run shows it: the service answers the state, and only the rest is sent.
    const log: Logged[] = [];
    const second = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.publishableKey,
      fetch: pageFetch(log),
    });
    const record = await second.uploadFile(source, { resume: store });
    assert.equal(record.id, kept?.id);
    assert.deepEqual(
      log
        .filter((entry) => entry.method === 'PUT')
        .map((entry) => partOf(entry))
        .sort(),
      ['2', '3'],
    );
    assert.ok(
      log
        .filter(
          (entry) =>
            entry.url.startsWith(t.apiUrl) && /\/v1\/uploads\/[^/]+(\/complete)?$/.test(entry.url),
        )
        .every(
          (entry) => (entry.headers as Record<string, string>)['X-Upload-Token'] === kept?.token,
        ),
      'state and complete carry the token',
    );
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
    assert.equal(remembered.size, 0, 'forgotten once done');
  });

  it('retries a part after a network failure, and only that part', async () => {
    const bytes = patternBytes(6 * MiB, 9);
    const log: Logged[] = [];
    let failed = false;
    const flaky = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.secretKey,
      fetch: recordingFetch(log, async (url, init) => {
        if (!failed && init?.method === 'PUT' && partOf({ url, headers: init?.headers }) === '2') {
          failed = true;
          throw new TypeError('fetch failed');
        }
        return undefined;
      }),
    });
    const record = await flaky.uploadFile(
      { size: bytes.length, slice: (start, end) => new Blob([bytes.subarray(start, end)]) },
      { name: 'flaky.bin' },
    );
    const puts = log.filter((entry) => entry.method === 'PUT').map((entry) => partOf(entry));
    assert.deepEqual(puts.sort(), ['1', '2', '2']);
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
  });

  it('sends each part with its digest, and sends again a part damaged on the way', async () => {
    const bytes = patternBytes(11 * MiB + 5, 12);
    const path = join(dir, 'damaged.bin');
    await writeFile(path, bytes);
    const header = SCALE ? 'Content-MD5' : 'Content-Digest';
    const log: Logged[] = [];
    const answers: { part: string; status: number }[] = [];
    let damaged = false;
    const flipping = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.secretKey,
      fetch: recordingFetch(log, async (url, init) => {
        if (init?.method !== 'PUT') return undefined;
        const part = partOf({ url, headers: init.headers });
        let body = init.body;
        if (!damaged && part === '2') {
          // One bit flipped on the way, the digest of the bytes as they left kept.
          damaged = true;
          const sent = new Uint8Array(await new Response(body).arrayBuffer());
          sent[4096] = (sent[4096] as number) ^ 0x01;
          body = sent;
        }
        const { duplex: _, ...rest } = init as RequestInit & { duplex?: string };
        const response = await fetch(url, {
          ...rest,
          body,
          ...(body instanceof ReadableStream ? ({ duplex: 'half' } as RequestInit) : {}),
        });
        answers.push({ part, status: response.status });
        return response;
      }),
    });
    const record = await flipping.uploadFile(await fileSource(path), { retries: 2 });
    const puts = log.filter((entry) => entry.method === 'PUT');
    assert.deepEqual(puts.map((entry) => partOf(entry)).sort(), ['1', '2', '2', '3']);
    for (const put of puts) assert.ok(new Headers(put.headers).get(header), `${header} sent`);
    assert.deepEqual(
      answers.filter((answer) => answer.status !== 200),
      [{ part: '2', status: 400 }],
    );
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
  });

  it('names a part refused as damaged checksum_mismatch, whichever store refused it', async () => {
    const signed = await client.sign({ name: 'refused.bin', size: 100, checksum: true });
    const part = signed.parts[0] as SignedPart;
    const wrong = createHash(signed.checksum ?? 'sha256')
      .update('other bytes')
      .digest('base64');
    const headers = {
      ...part.headers,
      [CHECKSUM_HEADER[signed.checksum ?? 'sha256']]: checksumHeaderValue(
        signed.checksum ?? 'sha256',
        wrong,
      ),
    };
    await assert.rejects(
      client.uploadPart({ ...part, headers }, patternBytes(100)),
      (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.status, 400);
        assert.equal(error.code, 'checksum_mismatch');
        return true;
      },
    );
  });

  it('signs without checksums when told not to, and sends no digest', async () => {
    const bytes = patternBytes(3000, 13);
    const log: Logged[] = [];
    const plain = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.secretKey,
      fetch: recordingFetch(log),
    });
    const record = await plain.uploadFile(
      { size: bytes.length, slice: (start, end) => new Blob([bytes.subarray(start, end)]) },
      { name: 'plain.bin', checksum: false },
    );
    assert.equal((await plain.getUpload(record.id)).checksum, null);
    const put = log.find((entry) => entry.method === 'PUT');
    const sent = new Headers(put?.headers);
    assert.equal(sent.get('Content-Digest') ?? sent.get('Content-MD5'), null);
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
  });

  it('signs again when a part URL has expired', async () => {
    // Two seconds: S3 counts a presigned URL's life from its signing second, so a
    // one-second URL can be dead on arrival; the delay below outlasts two.
    const short = await startTestService({ FILEHOST_UPLOAD_URL_TTL: '2' });
    try {
      const log: Logged[] = [];
      let delayed = false;
      const slow = new FilehostClient({
        endpoint: short.apiUrl,
        apiKey: short.secretKey,
        fetch: recordingFetch(log, async (_url, init) => {
          if (!delayed && init?.method === 'PUT') {
            delayed = true;
            await new Promise((resolve) => setTimeout(resolve, 2200));
          }
          return undefined;
        }),
      });
      const record = await slow.uploadFile(
        { size: 10, slice: () => 'abcdefghij' },
        { name: 'late.txt' },
      );
      assert.equal(record.status, 'ready');
      assert.deepEqual(
        log.map((entry) =>
          entry.method === 'PUT'
            ? `PUT part ${partOf(entry)}`
            : `${entry.method} ${new URL(entry.url).pathname.replace(/\/uploads\/(?!sign$)[^/]+/, '/uploads/:id')}`,
        ),
        [
          'POST /v1/uploads/sign',
          'PUT part 1',
          'GET /v1/uploads/:id',
          'PUT part 1',
          'POST /v1/uploads/:id/complete',
        ],
      );
    } finally {
      await short.close();
    }
  });

  it('signs and completes many in one call each, with per-upload errors', async () => {
    const signed = await client.signMany([
      { name: 'a.txt', size: 3, type: 'text/plain' },
      { name: 'b.txt', size: 4 },
    ]);
    assert.equal(signed.length, 2);
    const [a, b] = signed as [SignResponse, SignResponse];
    const etag = (await client.uploadPart(a.parts[0] as SignedPart, 'abc')).etag;
    const results = await client.completeMany([
      { id: a.id, parts: [{ partNumber: 1, etag }] },
      { id: b.id },
    ]);
    assert.equal(results[0]?.file?.status, 'ready');
    const error = results[1]?.error;
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 409);
    assert.equal(error.code, 'upload_incomplete');
    assert.deepEqual(error.details.missingParts, [1]);
    await assert.rejects(
      client.signMany([
        { name: 'ok', size: 1 },
        { name: 'empty', size: 0 },
      ]),
      (caught: unknown) => {
        assert.ok(caught instanceof ApiError);
        assert.equal(caught.code, 'empty_body');
        assert.equal(caught.details.index, 1);
        return true;
      },
    );
  });

  it('uploads many small files in one request (uploadMany), each with its own result', async () => {
    const good = patternBytes(2000, 31);
    const other = patternBytes(1500, 32);
    const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64');
    const results = await client.uploadMany([
      { entry: { name: 'good.bin', size: good.length, sha256: sha(good) }, body: new Blob([good]) },
      // Said to have other bytes than it has: refused alone, as damaged on the way.
      {
        entry: { name: 'damaged.bin', size: other.length, sha256: sha(good) },
        body: new Blob([other]),
      },
      { entry: { name: 'plain.bin', size: other.length }, body: new Blob([other]) },
    ]);
    assert.equal(results[0]?.file?.status, 'ready');
    assertSameBytes(
      await (await fetch(publicUrlOf(results[0]?.file as FileRecord))).arrayBuffer(),
      good,
    );
    const error = results[1]?.error;
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'checksum_mismatch');
    assert.equal(error.status, 400);
    assert.equal(results[2]?.file?.size, other.length);
    // Refused whole for one entry: the error says which.
    await assert.rejects(
      client.uploadMany([
        { entry: { name: 'ok', size: 1 }, body: new Blob(['x']) },
        { entry: { name: 'empty', size: 0 }, body: new Blob([]) },
      ]),
      (caught: unknown) => {
        assert.ok(caught instanceof ApiError);
        assert.equal(caught.code, 'empty_body');
        assert.equal(caught.details.index, 1);
        return true;
      },
    );
  });

  it('uploads 30 small files: two sign calls, batched completes, every byte served', async () => {
    const log: Logged[] = [];
    const many = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.secretKey,
      fetch: recordingFetch(log),
    });
    const contents = Array.from({ length: 30 }, (_, index) =>
      patternBytes(100 + index * 37, index),
    );
    const done: number[] = [];
    let progress = 0;
    const results = await many.uploadFiles(
      contents.map((bytes, index) => ({
        size: bytes.length,
        name: `small-${index}.bin`,
        metadata: { n: String(index) },
        slice: (start, end) => bytes.slice(start, end),
      })),
      {
        onFileDone: (index) => done.push(index),
        onProgress: ({ bytesUploaded, bytesTotal }) => {
          assert.equal(
            bytesTotal,
            contents.reduce((sum, bytes) => sum + bytes.length, 0),
          );
          progress = bytesUploaded;
        },
      },
    );
    assert.equal(results.length, 30);
    for (const [index, result] of results.entries()) {
      assert.ok(result.file, `file ${index}: ${result.error?.message}`);
      assert.equal(result.file.name, `small-${index}.bin`);
      assert.deepEqual(result.file.metadata, { n: String(index) });
      assert.equal(result.file.status, 'ready');
      assertSameBytes(
        await (await fetch(publicUrlOf(result.file))).arrayBuffer(),
        contents[index] as Uint8Array,
      );
    }
    assert.deepEqual(
      [...done].sort((x, y) => x - y),
      [...contents.keys()],
    );
    assert.equal(
      progress,
      contents.reduce((sum, bytes) => sum + bytes.length, 0),
    );
    const calls = (method: string, path: string) =>
      log.filter((entry) => entry.method === method && new URL(entry.url).pathname === path).length;
    // The first 8 are signed at once, so their PUTs start while the other 22 are signed.
    assert.equal(calls('POST', '/v1/uploads/sign'), 2);
    const puts = log.filter((entry) => entry.method === 'PUT');
    assert.equal(puts.length, 30);
    // Each part carried its digest (the uploads were signed with checksums).
    const digestHeader = SCALE ? 'Content-MD5' : 'Content-Digest';
    assert.ok(puts.every((put) => new Headers(put.headers).get(digestHeader)));
    const completes = calls('POST', '/v1/uploads/complete');
    assert.ok(completes >= 1 && completes < 30, `${completes} batch completes`);
    assert.equal(
      log.filter((entry) => /\/v1\/uploads\/[^/]+\/complete$/.test(new URL(entry.url).pathname))
        .length,
      0,
    );
  });

  it('uploadFiles: a refused file, a failing source and a failed batch complete lose no other file', async () => {
    const log: Logged[] = [];
    let batchCompleteFailed = false;
    const flaky = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.secretKey,
      fetch: recordingFetch(log, async (url, init) => {
        // The first batch complete is lost on the way (network).
        if (
          !batchCompleteFailed &&
          init?.method === 'POST' &&
          url.endsWith('/v1/uploads/complete')
        ) {
          batchCompleteFailed = true;
          throw new TypeError('fetch failed');
        }
        return undefined;
      }),
    });
    const good = (index: number) => {
      const bytes = patternBytes(50 + index, index);
      return { size: bytes.length, name: `g${index}`, slice: () => bytes, bytes };
    };
    const files = [
      good(0),
      { size: 0, name: 'empty', slice: () => new Uint8Array(0) },
      good(2),
      {
        size: 10,
        name: 'unreadable',
        slice: () => Promise.reject(new Error('the disk went away')),
      },
      good(4),
    ];
    const results = await flaky.uploadFiles(files, { retries: 1 });
    assert.deepEqual(
      results.map((result) => result.file?.name ?? result.error?.message),
      ['g0', results[1]?.error?.message, 'g2', 'the disk went away', 'g4'],
    );
    const refused = results[1]?.error;
    assert.ok(refused instanceof ApiError);
    assert.equal(refused.code, 'empty_body');
    for (const index of [0, 2, 4]) {
      const file = results[index]?.file as FileRecord;
      assert.equal(file.status, 'ready');
      assertSameBytes(
        await (await fetch(publicUrlOf(file))).arrayBuffer(),
        files[index]?.slice() as Uint8Array,
      );
    }
    assert.ok(batchCompleteFailed);
    // Signed three times: the batch refused for one file, the others again together, the
    // refused one alone (so it meets the error a single sign gives it); and the lost batch
    // complete sent again.
    const calls = (path: RegExp) =>
      log.filter((entry) => path.test(new URL(entry.url).pathname)).length;
    assert.equal(calls(/^\/v1\/uploads\/sign$/), 3);
    assert.ok(calls(/^\/v1\/uploads\/complete$/) >= 2);
    assert.equal(refused.details.index, undefined, 'its own error, not a position in a batch');
  });

  it('uploads private files and asks for signed links to them', async () => {
    const bytes = patternBytes(3000, 7);
    const one = await client.upload(bytes, { name: 'one.bin', visibility: 'private' });
    assert.deepEqual([one.visibility, one.url], ['private', null]);
    const multi = await client.uploadFile(
      {
        size: bytes.length,
        name: 'multi.bin',
        slice: async (start, end) => bytes.slice(start, end),
      },
      { visibility: 'private' },
    );
    assert.deepEqual([multi.visibility, multi.url], ['private', null]);
    const [batchPrivate, batchPublic] = await client.uploadFiles(
      [
        { size: 10, name: 'a.bin', slice: async () => bytes.slice(0, 10) },
        {
          size: 10,
          name: 'b.bin',
          visibility: 'public',
          slice: async () => bytes.slice(0, 10),
        },
      ],
      { visibility: 'private' },
    );
    assert.equal(batchPrivate?.file?.visibility, 'private');
    assert.equal(batchPublic?.file?.visibility, 'public');
    assert.equal((await client.getFile(multi.id)).url, null);

    for (const id of [one.id, multi.id]) {
      const link = await client.signedUrl(id, { expiresIn: 120 });
      assert.ok(link.expiresAt > Date.now() + 110_000 && link.expiresAt <= Date.now() + 122_000);
      const served = await fetch(link.url);
      assert.equal(served.status, 200);
      assertSameBytes(await served.arrayBuffer(), bytes);
    }
    const download = await client.signedUrl(one.id, { download: true });
    const served = await fetch(download.url);
    assert.match(served.headers.get('content-disposition') ?? '', /^attachment;/);
    await served.arrayBuffer();

    // A page's client: its fetch sends the page's Origin, which the publishable key needs.
    const page = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.publishableKey,
      fetch: (input, init) =>
        fetch(input, { ...init, headers: { ...init?.headers, Origin: ALLOWED_ORIGIN } }),
    });
    await assert.rejects(page.signedUrl(one.id), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 403);
      assert.equal(error.code, 'secret_key_required');
      return true;
    });
    await assert.rejects(client.signedUrl(one.id, { expiresIn: 0 }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'invalid_request');
      return true;
    });
  });

  it('lists page by page and iterates over every file', async () => {
    const other = await t.otherProject();
    const scoped = new FilehostClient({ endpoint: t.apiUrl, apiKey: other.secretKey });
    const ids: string[] = [];
    for (let index = 0; index < 7; index++) ids.unshift((await scoped.upload(`file ${index}`)).id);
    const page = await scoped.listFiles({ limit: 3 });
    assert.deepEqual(
      page.files.map((file) => file.id),
      ids.slice(0, 3),
    );
    assert.ok(page.nextCursor);
    const all: string[] = [];
    for await (const file of scoped.iterateFiles({ pageSize: 2 })) all.push(file.id);
    assert.deepEqual(all, ids);
  });

  it('reports the service errors with status, code, message and details', async () => {
    const browserKey = new FilehostClient({ endpoint: t.apiUrl, apiKey: t.publishableKey });
    await assert.rejects(browserKey.listFiles(), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 403);
      assert.equal(error.code, 'origin_not_allowed');
      // Every error names its request (docs/api.md, Errors).
      assert.match(error.requestId ?? '', /^[0-9a-f-]{36}$/);
      assert.deepEqual(error.details, { origin: null, requestId: error.requestId });
      return true;
    });
    await assert.rejects(client.sign({ name: 'big', size: 200_000_000 }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'too_large');
      assert.deepEqual(error.details, { limit: 100_000_000, requestId: error.requestId });
      return true;
    });
    const unknown = new FilehostClient({ endpoint: t.apiUrl, apiKey: 'pk_live_nope' });
    await assert.rejects(unknown.listFiles(), { code: 'invalid_key', status: 401 });
    const offline = new FilehostClient({ endpoint: 'http://127.0.0.1:9', apiKey: t.secretKey });
    await assert.rejects(offline.listFiles(), { code: 'network_error', status: 0 });
  });

  it('carries Retry-After on rate_limited, and the retry policy waits that long', async () => {
    const limited = await startTestService({ FILEHOST_RATE_LIMIT: '1' });
    try {
      const browser = new FilehostClient({
        endpoint: limited.apiUrl,
        apiKey: limited.publishableKey,
        fetch: (input, init) =>
          fetch(input, {
            ...init,
            headers: { ...(init?.headers as Record<string, string>), Origin: ALLOWED_ORIGIN },
          }),
      });
      await browser.listFiles();
      const error = await browser.listFiles().catch((caught: unknown) => caught);
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'rate_limited');
      assert.equal(error.status, 429);
      assert.ok(error.retryAfter !== null && error.retryAfter >= 1 && error.retryAfter <= 60);
      assert.equal(retryDelayMs(error, 0), error.retryAfter * 1000);
    } finally {
      await limited.close();
    }
  });

  it('retries only what can succeed later', async () => {
    let calls = 0;
    await assert.rejects(
      withRetry(async () => {
        calls++;
        throw new ApiError(403, 'invalid_signature', 'no');
      }),
    );
    assert.equal(calls, 1);
    calls = 0;
    const value = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw new ApiError(503, 'internal_error', 'later');
        return 'ok';
      },
      { baseDelayMs: 1 },
    );
    assert.equal(value, 'ok');
    assert.equal(calls, 3);
  });

  it('stops at once when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('user cancelled'));
    await assert.rejects(client.listFiles({}, { signal: controller.signal }), /user cancelled/);
  });

  it('refuses a secret key in a browser, and bad options anywhere', () => {
    const globals = globalThis as Record<string, unknown>;
    globals.window = {};
    globals.document = {};
    try {
      assert.throws(
        () => new FilehostClient({ endpoint: t.apiUrl, apiKey: t.secretKey }),
        /secret key \(sk_live_…\) must never be used in a web page/,
      );
      assert.doesNotThrow(
        () => new FilehostClient({ endpoint: t.apiUrl, apiKey: t.publishableKey }),
      );
    } finally {
      delete globals.window;
      delete globals.document;
    }
    assert.throws(() => new FilehostClient({ endpoint: 'localhost:8787', apiKey: 'x' }), TypeError);
    assert.throws(() => new FilehostClient({ endpoint: t.apiUrl, apiKey: '' }), TypeError);
  });
});

/** A request a test's fetch passed on. */
interface Logged {
  method: string;
  url: string;
  headers?: HeadersInit;
}

/**
 * The part a part PUT is for, whichever store signed it: the local store names it in the
 * `X-Filehost-Part` header (every part shares one URL; URLs issued before ended in
 * `/parts/<n>`), S3's presigned URLs carry `partNumber=<n>`.
 */
function partOf(request: Pick<Logged, 'url' | 'headers'>): string {
  const header = new Headers(request.headers).get('X-Filehost-Part');
  if (header) return header;
  const parsed = new URL(request.url);
  return parsed.searchParams.get('partNumber') ?? parsed.pathname.split('/').at(-1) ?? '';
}

describe('part PUT errors from S3, in the words of the API', () => {
  it('reads S3 BadDigest as checksum_mismatch, and leaves every other answer as it was', () => {
    const xml = (code: string) =>
      `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message></Message></Error>`;
    const mapped = partPutError(ApiError.fromBody(400, xml('BadDigest'), null), xml('BadDigest'));
    assert.equal(mapped.code, 'checksum_mismatch');
    assert.equal(mapped.status, 400);
    const other = ApiError.fromBody(403, xml('SignatureDoesNotMatch'), null);
    assert.equal(partPutError(other, xml('SignatureDoesNotMatch')), other);
    const ours = ApiError.fromBody(400, '{"error":{"code":"size_mismatch","message":"m"}}', null);
    assert.equal(partPutError(ours, xml('BadDigest')), ours);
  });
});
