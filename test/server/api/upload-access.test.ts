// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  CompleteBatchResponse,
  FileListResponse,
  FileRecord,
  SignResponse,
  UploadState,
} from '../../../src/api/types.js';
import { sweep } from '../../../src/server/uploads/sweeper.js';
import { SCALE } from '../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  partAccepted,
  patternBytes,
  rawHttp,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

type Part = SignResponse['parts'][number];

/**
 * A publishable key is public: a stranger reads it from the page. It may start uploads,
 * but only whoever signed an upload may see, continue or finish it (decisions.md, "Who may
 * act on a pending upload").
 */
describe('who may act on a pending upload', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  /** A page's call: the publishable key, from the allowed origin. */
  const page = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
    t.api(path, {
      method: init.method ?? 'GET',
      key: t.publishableKey,
      origin: ALLOWED_ORIGIN,
      headers: {
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(init.token === undefined ? {} : { 'X-Upload-Token': init.token }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  const put = (part: Part, bytes: Uint8Array<ArrayBuffer>) =>
    fetch(part.url, { method: 'PUT', headers: part.headers, body: bytes });

  it("stops a stranger with the page's key at the first step; the signer finishes", async () => {
    const bytes = patternBytes(100, 1);
    const signed = await json<SignResponse>(
      await page('/v1/uploads/sign', { method: 'POST', body: { name: 'mine.bin', size: 100 } }),
      201,
    );
    assert.match(signed.uploadToken, /^[A-Za-z0-9_-]{22,}$/);
    // The stranger sees the pending upload in the list (the reference lists pending rows)...
    const listed = await json<FileListResponse>(await page('/v1/files'));
    const row = listed.files.find((file) => file.id === signed.id);
    assert.equal(row?.status, 'pending');
    assert.ok(!JSON.stringify(listed).includes(signed.uploadToken), 'no token in a list');
    // ...and gets nothing further: no state, no fresh URLs, no completion, as if unknown.
    for (const token of [undefined, 'guessedGuessedGuessed1', `${signed.uploadToken}x`]) {
      await expectError(await page(`/v1/uploads/${signed.id}`, { token }), 404, 'not_found');
      await expectError(
        await page(`/v1/uploads/${signed.id}/complete`, { method: 'POST', token }),
        404,
        'not_found',
      );
      const batch = await json<CompleteBatchResponse>(
        await page('/v1/uploads/complete', {
          method: 'POST',
          body: { uploads: [{ id: signed.id, ...(token ? { uploadToken: token } : {}) }] },
        }),
      );
      assert.equal(batch.results[0]?.error?.code, 'not_found');
    }
    // The signer, with the token: state, the part, completion.
    const state = await json<UploadState>(
      await page(`/v1/uploads/${signed.id}`, { token: signed.uploadToken }),
    );
    assert.equal(state.status, 'pending');
    const etag = await partAccepted(await put(signed.parts[0] as Part, bytes), {
      partNumber: 1,
      size: 100,
    });
    const done = await json<FileRecord>(
      await page(`/v1/uploads/${signed.id}/complete`, {
        method: 'POST',
        token: signed.uploadToken,
        body: { parts: [{ partNumber: 1, etag }] },
      }),
    );
    assert.equal(done.status, 'ready');
    assert.ok(!JSON.stringify(done).includes(signed.uploadToken), 'no token in a record');
    // The project's backend (secret key) needs no token.
    const byBackend = await json<UploadState>(await t.state(signed.id));
    assert.equal(byBackend.status, 'ready');
    // A ready upload lists the ETags it was completed with.
    assert.deepEqual(
      byBackend.parts.map((part) => part.etag),
      [etag],
    );
  });

  it('answers 409 upload_conflict to a complete naming parts the file was not completed with', async () => {
    const signed = await json<SignResponse>(
      await page('/v1/uploads/sign', { method: 'POST', body: { name: 'a.bin', size: 10 } }),
      201,
    );
    const part = signed.parts[0] as Part;
    const first = await partAccepted(await put(part, patternBytes(10, 1)), part);
    const complete = (etag: string) =>
      page(`/v1/uploads/${signed.id}/complete`, {
        method: 'POST',
        token: signed.uploadToken,
        body: { parts: [{ partNumber: 1, etag }] },
      });
    assert.equal((await json<FileRecord>(await complete(first))).status, 'ready');
    // Again with the same ETags: the same 200; with others: the file holds other bytes.
    assert.equal((await json<FileRecord>(await complete(first))).status, 'ready');
    await expectError(await complete('"someone-elses-bytes"'), 409, 'upload_conflict', {
      conflictingParts: [1],
    });
    // No parts named: nothing to contradict.
    const plain = await page(`/v1/uploads/${signed.id}/complete`, {
      method: 'POST',
      token: signed.uploadToken,
    });
    assert.equal((await json<FileRecord>(plain)).status, 'ready');
  });

  it('refuses X-Upload-Token sent twice, and lets a preflight allow it', async () => {
    // Sent twice, by a client that does not join them (fetch would send "a, b").
    const twice = await rawHttp(t.apiUrl, {
      method: 'GET',
      path: '/v1/uploads/abc',
      headers: { Authorization: `Bearer ${t.secretKey}`, 'X-Upload-Token': ['a', 'b'] },
    });
    assert.equal(twice.status, 400, twice.body);
    assert.equal(JSON.parse(twice.body).error.code, 'invalid_request');
    const preflight = await fetch(`${t.apiUrl}/v1/uploads/abc/complete`, {
      method: 'OPTIONS',
      headers: {
        Origin: ALLOWED_ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, x-upload-token',
      },
    });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-Upload-Token/);
  });

  it('checks a part credential before the upload: forged is 403 for a ready upload too', {
    skip: SCALE && 'S3 checks its own URLs',
  }, async () => {
    const signed = await json<SignResponse>(
      await page('/v1/uploads/sign', { method: 'POST', body: { name: 'r.bin', size: 10 } }),
      201,
    );
    const part = signed.parts[0] as Part;
    await partAccepted(await put(part, patternBytes(10, 1)), part);
    await json<FileRecord>(
      await page(`/v1/uploads/${signed.id}/complete`, {
        method: 'POST',
        token: signed.uploadToken,
      }),
    );
    const signature = part.headers['X-Filehost-Signature'] as string;
    const forged = {
      ...part,
      headers: {
        ...part.headers,
        'X-Filehost-Signature': `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`,
      },
    };
    await expectError(await put(forged, patternBytes(10, 1)), 403, 'invalid_signature');
    // The genuine credential on the ready upload: it is complete.
    await expectError(await put(part, patternBytes(10, 1)), 409, 'upload_not_pending');
  });
});

describe('when a pending upload expires', () => {
  it('a lifetime after its sign or its last part, capped after its sign; asking does not move it', async () => {
    // Lifetime 3 s, cap 5 s after the sign: seconds standing in for 24 hours and 7 days.
    const t = await startTestService({
      FILEHOST_UPLOAD_LIFETIME: '3',
      FILEHOST_UPLOAD_MAX_LIFETIME: '5',
      FILEHOST_PENDING_GRACE: '0',
    });
    try {
      const sign = async (size: number) =>
        json<SignResponse>(await t.sign({ name: 'e.bin', size }), 201);
      const stateOf = async (id: string) => json<UploadState>(await t.state(id));
      const signedAt = Date.now();
      const signed = await sign(10);
      assert.ok(Math.abs(signed.expiresAt - (signedAt + 3000)) < 500, 'a lifetime after sign');
      await new Promise((resolve) => setTimeout(resolve, 400));
      const asked = await stateOf(signed.id);
      assert.equal(asked.expiresAt, signed.expiresAt, 'asking for the state does not move it');
      // Part URLs never outlive the upload (at scale: S3's own expiry in the URL).
      for (const part of asked.parts) {
        const urlExpiry = part.headers?.['X-Filehost-Expires'];
        if (urlExpiry) assert.ok(Number(urlExpiry) <= asked.expiresAt);
        const amz = part.url ? new URL(part.url).searchParams : null;
        if (amz?.get('X-Amz-Expires')) {
          const date = amz.get('X-Amz-Date') as string;
          const start = Date.UTC(
            Number(date.slice(0, 4)),
            Number(date.slice(4, 6)) - 1,
            Number(date.slice(6, 8)),
            Number(date.slice(9, 11)),
            Number(date.slice(11, 13)),
            Number(date.slice(13, 15)),
          );
          assert.ok(start + Number(amz.get('X-Amz-Expires')) * 1000 <= asked.expiresAt + 1000);
        }
      }
      // A part that arrives later moves it, to a lifetime after the part but never past
      // the cap after the sign (here the cap: the part comes 2.2 s after the sign)...
      // Timed from the service's own moment of the sign (its expiry less the lifetime), which a
      // loaded machine may set some way after this side's `signedAt`.
      const signedThere = signed.expiresAt - 3000;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, signedThere + 2200 - Date.now())),
      );
      const part = asked.parts[0] as Part;
      const arrivedAt = Date.now();
      await partAccepted(
        await fetch(part.url, { method: 'PUT', headers: part.headers, body: patternBytes(10) }),
        part,
      );
      const moved = (await stateOf(signed.id)).expiresAt;
      assert.ok(
        arrivedAt + 3000 > signed.expiresAt + 2000,
        'the part came late enough to hit the cap',
      );
      assert.equal(moved, signed.expiresAt + 2000, 'capped 5 s after the sign');
      // ...and the sweep, which finds the row's old expiry past, keeps it.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, signed.expiresAt - Date.now() + 100)),
      );
      assert.equal((await sweep(t.service.context)).expired, 0);
      assert.equal((await stateOf(signed.id)).status, 'pending');
      // Never past the cap after its sign, however late its last part.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, signedAt + 5000 - Date.now() + 300)),
      );
      assert.equal((await sweep(t.service.context)).expired, 1);
      await expectError(await t.state(signed.id), 404, 'not_found');
    } finally {
      await t.close();
    }
  });
});
