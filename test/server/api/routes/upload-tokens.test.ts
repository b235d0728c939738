// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  FileListResponse,
  FileRecord,
  SignBatchResponse,
  SignResponse,
  UploadResponse,
  UploadTokenRequest,
  UploadTokenResponse,
} from '../../../../src/api/types.js';
import { hashKey, newId } from '../../../../src/server/ground/secrets.js';
import { bytesOfType } from '../../../helpers/bytes.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  OTHER_ORIGIN,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';

/** The one part of a small upload, sent to its signed URL and accepted. */
async function putFirst(t: TestService, signed: SignResponse, bytes: Uint8Array<ArrayBuffer>) {
  const part = signed.parts[0] as SignResponse['parts'][number];
  await partAccepted(await t.putPart(part, bytes), part);
}

describe('upload tokens (POST /v1/upload-tokens and their use)', () => {
  let t: TestService;
  const mint = async (policy: UploadTokenRequest = {}) =>
    json<UploadTokenResponse>(
      await t.api('/v1/upload-tokens', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(policy),
      }),
      201,
    );
  /** Signs, sends and completes one file with `key`: the ready record. */
  const uploadWith = async (key: string, bytes: Uint8Array<ArrayBuffer>, type: string) => {
    const signed = await json<SignResponse>(
      await t.sign({ name: 'f.bin', size: bytes.length, type }, { key }),
      201,
    );
    await putFirst(t, signed, bytes);
    return t.complete(signed.id, undefined, {
      key,
      headers: { 'X-Upload-Token': signed.uploadToken },
    });
  };

  before(async () => {
    t = await startTestService({
      FILEHOST_ALLOWED_TYPES: 'image/*,text/plain,application/pdf,application/octet-stream',
    });
  });
  after(() => t.close());

  it('mints with the secret key only, answering the token and its policy as stored', async () => {
    const before = Date.now();
    const minted = await mint({
      maxFiles: 3,
      maxFileSize: 5_000_000,
      maxBytes: 20_000_000,
      types: ['image/*', 'application/pdf'],
      metadata: { user: 'u1' },
      visibility: 'private',
      deleteAfter: 86_400,
      expiresIn: 600,
    });
    assert.match(minted.token, /^upt_[A-Za-z0-9_-]{43}$/);
    assert.ok(minted.expiresAt >= before + 600_000 && minted.expiresAt <= Date.now() + 600_000);
    const { token, expiresAt, ...policy } = minted;
    assert.deepEqual(policy, {
      maxFiles: 3,
      maxFileSize: 5_000_000,
      maxBytes: 20_000_000,
      types: ['image/*', 'application/pdf'],
      metadata: { user: 'u1' },
      visibility: 'private',
      deleteAfter: 86_400,
    });
    // Defaults: no limits of its own, one hour.
    const plain = await mint();
    assert.deepEqual(
      { ...plain, token: '', expiresAt: 0 },
      {
        token: '',
        expiresAt: 0,
        maxFiles: null,
        maxFileSize: null,
        maxBytes: null,
        types: null,
        metadata: {},
        visibility: null,
        deleteAfter: null,
      },
    );
    assert.ok(Math.abs(plain.expiresAt - (Date.now() + 3_600_000)) < 10_000);
    // Only its hash is kept.
    const stored = await t.service.context.db.findUploadTokenByHash(hashKey(token));
    assert.equal(stored?.token.expiresAt, expiresAt);
    assert.ok(!JSON.stringify(stored).includes(token));

    await expectError(
      await t.api('/v1/upload-tokens', {
        method: 'POST',
        key: t.publishableKey,
        origin: ALLOWED_ORIGIN,
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      }),
      403,
      'secret_key_required',
    );
    await expectError(
      await t.api('/v1/upload-tokens', { method: 'POST', key: token, body: '{}' }),
      403,
      'token_scope',
    );
  });

  it('refuses a policy it cannot keep exactly: 400 invalid_request, nothing minted', async () => {
    const bad: unknown[] = [
      { maxFiles: 0 },
      { maxFiles: 1.5 },
      { maxFiles: '3' },
      { maxFileSize: 0 },
      // Larger than the free plan's largest file (100 MiB one-request).
      { maxFileSize: 104_857_601 },
      // Larger than the project's quota (free: 10 GB).
      { maxBytes: 10_000_000_001 },
      { types: [] },
      { types: ['image'] },
      // Wider than the project's own list.
      { types: ['video/mp4'] },
      { types: ['*/*'] },
      { metadata: { user: 1 } },
      { metadata: 'user' },
      { visibility: 'secret' },
      { deleteAfter: 59 },
      { deleteAfter: 365 * 86_400 + 1 },
      { expiresIn: 59 },
      { expiresIn: 86_401 },
      { maxFile: 3 },
      [],
      'x',
    ];
    for (const body of bad) {
      await expectError(
        await t.api('/v1/upload-tokens', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        }),
        400,
        'invalid_request',
      );
    }
    await expectError(
      await t.api('/v1/upload-tokens', { method: 'POST', body: '{"maxFiles":' }),
      400,
      'invalid_request',
    );
  });

  it('signs and completes with a token: its metadata wins, its visibility and deleteAfter are forced', async () => {
    const { token } = await mint({
      metadata: { user: 'u1', plan: 'gold' },
      visibility: 'private',
      deleteAfter: 3600,
    });
    const bytes = patternBytes(1000, 1);
    const signed = await json<SignResponse>(
      await t.sign(
        {
          name: 'a.txt',
          size: 1000,
          type: 'text/plain',
          metadata: { user: 'forged', note: 'hi' },
          visibility: 'public',
        },
        { key: token },
      ),
      201,
    );
    await putFirst(t, signed, bytes);
    // Without the upload's own token, the pending upload is nobody's business.
    await expectError(await t.complete(signed.id, undefined, { key: token }), 404, 'not_found');
    const record = await json<FileRecord>(
      await t.complete(signed.id, undefined, {
        key: token,
        headers: { 'X-Upload-Token': signed.uploadToken },
      }),
    );
    assert.deepEqual(record.metadata, { user: 'u1', plan: 'gold', note: 'hi' });
    assert.equal(record.visibility, 'private');
    assert.equal(record.url, null);
    assert.equal(record.deleteAt, record.createdAt + 3_600_000);
    const got = await json<FileRecord>(await t.api(`/v1/files/${record.id}`));
    assert.equal(got.deleteAt, record.deleteAt);
    const listed = await json<FileListResponse>(await t.api('/v1/files?limit=100'));
    assert.equal(listed.files.find((file) => file.id === record.id)?.deleteAt, record.deleteAt);
    // A key's file keeps none.
    const plain = await json<FileRecord>(await uploadWith(t.secretKey, bytes, 'text/plain'));
    assert.equal(plain.deleteAt, null);
  });

  it('is accepted on upload calls only: elsewhere 403 token_scope; unknown 401 invalid_key', async () => {
    const { token } = await mint();
    for (const [method, path] of [
      ['GET', '/v1/files'],
      ['GET', `/v1/files/${newId()}`],
      ['DELETE', `/v1/files/${newId()}`],
      ['GET', '/v1/usage'],
      ['GET', '/v1/webhooks'],
      ['GET', '/v1/events'],
      ['POST', `/v1/files/${newId()}/signed-url`],
    ] as const) {
      await expectError(await t.api(path, { method, key: token }), 403, 'token_scope');
    }
    const unknown = `upt_${'A'.repeat(43)}`;
    await expectError(await t.sign({ name: 'a', size: 1 }, { key: unknown }), 401, 'invalid_key');
    await expectError(await t.api('/v1/files', { key: unknown }), 401, 'invalid_key');
  });

  it('checks Origin when one is sent, and needs none', async () => {
    const { token } = await mint();
    await json(await t.sign({ name: 'a', size: 1 }, { key: token }), 201);
    await json(await t.sign({ name: 'a', size: 1 }, { key: token, origin: ALLOWED_ORIGIN }), 201);
    await expectError(
      await t.sign({ name: 'a', size: 1 }, { key: token, origin: OTHER_ORIGIN }),
      403,
      'origin_not_allowed',
    );
    const opaque = await expectError(
      await t.sign({ name: 'a', size: 1 }, { key: token, origin: 'null' }),
      403,
      'origin_not_allowed',
    );
    assert.equal(
      opaque.message,
      'An upload token only works from a web page whose origin is on the project’s allowlist; this request has no usable Origin header.',
    );
  });

  it('past its expiry starts nothing (401 token_expired), yet finishes what it signed', async () => {
    const { token } = await mint();
    const bytes = patternBytes(100, 2);
    const signed = await json<SignResponse>(
      await t.sign({ name: 'a.txt', size: 100, type: 'text/plain' }, { key: token }),
      201,
    );
    await putFirst(t, signed, bytes);
    // Its expiry, moved into the past in the database every instance reads.
    const db = t.service.context.db;
    const found = await db.findUploadTokenByHash(hashKey(token));
    assert.ok(found);
    const expired = `upt_${newId()}${newId()}`;
    await db.createUploadToken({
      ...found.token,
      id: newId('upt_id_'),
      hash: hashKey(expired),
      expiresAt: Date.now() - 1,
    });
    const refused = await expectError(
      await t.sign({ name: 'a', size: 1 }, { key: expired }),
      401,
      'token_expired',
    );
    assert.equal(typeof refused.expiresAt, 'number');
    await expectError(
      await t.api('/v1/upload', {
        method: 'POST',
        key: expired,
        headers: { 'Content-Type': 'text/plain' },
        body: 'x',
      }),
      401,
      'token_expired',
    );
    // The expired token still continues an upload it may act on.
    const state = await t.state(signed.id, {
      key: expired,
      headers: { 'X-Upload-Token': signed.uploadToken },
    });
    assert.equal(state.status, 200);
    await state.body?.cancel();
    const record = await json<FileRecord>(
      await t.complete(signed.id, undefined, {
        key: expired,
        headers: { 'X-Upload-Token': signed.uploadToken },
      }),
    );
    assert.equal(record.status, 'ready');
  });

  it('maxFileSize: 413 too_large naming the limit, at sign and in a one-request upload', async () => {
    const { token } = await mint({ maxFileSize: 1000 });
    const error = await expectError(
      await t.sign({ name: 'a', size: 1001 }, { key: token }),
      413,
      'too_large',
      { limit: 1000 },
    );
    assert.match(error.message, /1000 bytes/);
    await json(await t.sign({ name: 'a', size: 1000 }, { key: token }), 201);
    const batch = await expectError(
      await t.signMany(
        [
          { name: 'a', size: 10 },
          { name: 'b', size: 1001 },
        ],
        { key: token },
      ),
      413,
      'too_large',
      { limit: 1000, index: 1 },
    );
    assert.match(batch.message, /files\[1\]/);
    await expectError(
      await t.api('/v1/upload', {
        method: 'POST',
        key: token,
        headers: { 'Content-Type': 'text/plain' },
        body: patternBytes(1001, 1),
      }),
      413,
      'too_large',
      { limit: 1000 },
    );
    // A chunked body has no length to check first: counted as it streams, nothing kept.
    const chunks = patternBytes(1500, 4);
    await expectError(
      await t.api('/v1/upload', {
        method: 'POST',
        key: token,
        headers: { 'Content-Type': 'text/plain' },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(chunks.subarray(0, 700));
            controller.enqueue(chunks.subarray(700));
            controller.close();
          },
        }),
      }),
      413,
      'too_large',
      { limit: 1000 },
    );
    const stored = await json<UploadResponse>(
      await t.api('/v1/upload', {
        method: 'POST',
        key: token,
        headers: { 'Content-Type': 'text/plain' },
        body: patternBytes(1000, 1),
      }),
      201,
    );
    assert.equal(stored.size, 1000);
  });

  it('types: declared at sign and recognised at complete, 415 unsupported_type; the room comes back', async () => {
    const { token } = await mint({ types: ['image/png'], maxFiles: 1 });
    await expectError(
      await t.sign({ name: 'a.txt', size: 10, type: 'text/plain' }, { key: token }),
      415,
      'unsupported_type',
    );
    // Declared image/png, but the bytes are text: refused at complete, nothing kept.
    const refused = await uploadWith(token, patternBytes(100, 5), 'image/png');
    await expectError(refused, 415, 'unsupported_type');
    // The refused upload gave its room back: the one file the token allows is still there.
    const record = await json<FileRecord>(
      await uploadWith(token, bytesOfType('image/png', 100), 'image/png'),
    );
    assert.equal(record.mime, 'image/png');
    await expectError(
      await t.sign({ name: 'b.png', size: 10, type: 'image/png' }, { key: token }),
      403,
      'token_exhausted',
    );
    // A one-request upload is held to them too.
    const other = await mint({ types: ['image/png'] });
    await expectError(
      await t.api('/v1/upload', {
        method: 'POST',
        key: other.token,
        headers: { 'Content-Type': 'image/png', 'X-Metadata': '{"user":"x"}' },
        body: patternBytes(100, 5),
      }),
      415,
      'unsupported_type',
    );
  });

  it('a one-request upload with a token: metadata merged, visibility and deleteAt forced', async () => {
    const { token } = await mint({
      metadata: { user: 'u9' },
      visibility: 'private',
      deleteAfter: 60,
      maxFiles: 1,
    });
    const before = Date.now();
    const stored = await json<UploadResponse>(
      await t.api('/v1/upload', {
        method: 'POST',
        key: token,
        headers: {
          'Content-Type': 'text/plain',
          'X-Metadata': '{"user":"forged","a":"b"}',
          'X-Visibility': 'public',
        },
        body: 'hello',
      }),
      201,
    );
    assert.equal(stored.visibility, 'private');
    assert.equal(stored.url, null);
    assert.ok(stored.deleteAt !== null && stored.deleteAt >= before + 60_000);
    const record = await json<FileRecord>(await t.api(`/v1/files/${stored.id}`));
    assert.deepEqual(record.metadata, { user: 'u9', a: 'b' });
    assert.equal(record.deleteAt, stored.deleteAt);
    await expectError(
      await t.api('/v1/upload', {
        method: 'POST',
        key: token,
        headers: { 'Content-Type': 'text/plain' },
        body: 'again',
      }),
      403,
      'token_exhausted',
      { limit: 'max_files', max: 1, available: 0 },
    );
  });

  it('50 overlapping signs with maxFiles 10: exactly 10 succeed; an aborted upload gives its room back', async () => {
    const { token } = await mint({ maxFiles: 10 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        t.sign({ name: `f${index}`, size: 10 }, { key: token }),
      ),
    );
    const signed = answers.filter((answer) => answer.status === 201);
    assert.equal(signed.length, 10);
    for (const answer of answers) {
      if (answer.status !== 201) {
        await expectError(answer, 403, 'token_exhausted', { limit: 'max_files', max: 10 });
      }
    }
    const first = await json<SignResponse>(signed[0] as Response, 201);
    for (const answer of signed.slice(1)) await answer.body?.cancel();
    // DELETE of a pending upload (the backend aborts it): one more may be signed, no more.
    const deleted = await t.api(`/v1/files/${first.id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 204);
    const again = await Promise.all(
      Array.from({ length: 5 }, () => t.sign({ name: 'g', size: 10 }, { key: token })),
    );
    assert.deepEqual(again.map((answer) => answer.status).sort(), [201, 403, 403, 403, 403]);
    for (const answer of again) await answer.body?.cancel();
  });

  it('maxBytes holds under overlapping batches, counted whole: a batch over it is refused whole', async () => {
    const { token } = await mint({ maxBytes: 1000 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.signMany(
          [
            { name: 'a', size: 100 },
            { name: 'b', size: 100 },
          ],
          { key: token },
        ),
      ),
    );
    const signed = answers.filter((answer) => answer.status === 201);
    assert.equal(signed.length, 5);
    for (const answer of answers) {
      if (answer.status === 201) {
        const body = await json<SignBatchResponse>(answer, 201);
        assert.equal(body.uploads.length, 2);
      } else {
        await expectError(answer, 403, 'token_exhausted', { limit: 'max_bytes', max: 1000 });
      }
    }
  });

  it('is rate-limited per token', async () => {
    const limited = await startTestService({ FILEHOST_RATE_LIMIT: '3' });
    try {
      const minted = await json<UploadTokenResponse>(
        await limited.api('/v1/upload-tokens', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
        }),
        201,
      );
      const statuses: number[] = [];
      for (let index = 0; index < 4; index++) {
        const answer = await limited.sign({ name: 'a', size: 1 }, { key: minted.token });
        statuses.push(answer.status);
        await answer.body?.cancel();
      }
      assert.deepEqual(statuses, [201, 201, 201, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('upload tokens: room of a pending upload comes back at its expiry', () => {
  let t: TestService;
  before(async () => {
    // Pending uploads expire 2 s after their sign; the sweeper would remove them a day later.
    t = await startTestService({ FILEHOST_UPLOAD_LIFETIME: '2' });
  });
  after(() => t.close());

  it('a token whose only file expired unfinished may sign again at once', async () => {
    const { token } = await json<UploadTokenResponse>(
      await t.api('/v1/upload-tokens', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"maxFiles":1,"maxBytes":10}',
      }),
      201,
    );
    const signed = await json<SignResponse>(
      await t.sign({ name: 'a', size: 10 }, { key: token }),
      201,
    );
    await expectError(await t.sign({ name: 'b', size: 1 }, { key: token }), 403, 'token_exhausted');
    await new Promise((resolve) => setTimeout(resolve, signed.expiresAt - Date.now() + 50));
    await json(await t.sign({ name: 'c', size: 10 }, { key: token }), 201);
    // The expired one cannot become a file any more.
    await expectError(
      await t.complete(signed.id, undefined, {
        key: token,
        headers: { 'X-Upload-Token': signed.uploadToken },
      }),
      404,
      'not_found',
    );
  });
});
