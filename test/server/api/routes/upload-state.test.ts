// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import type { Server, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type {
  FileRecord,
  ImportResponse,
  ImportState,
  SignResponse,
  UploadState,
  UploadTokenResponse,
} from '../../../../src/api/types.js';
import { hashKey, newId } from '../../../../src/server/ground/secrets.js';
import { publicUrlOf } from '../../../helpers/public-url.js';
import { PUBLIC_STAND_IN, serveRemote } from '../../../helpers/remote-server.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';
import { partSlice } from '../../../helpers/signed-parts.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

describe('GET /v1/uploads/:id', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  it('reports missing parts, resumes from the upload state, and checks claimed ETags', async () => {
    const bytes = patternBytes(3 * PART, 5);
    const signed = await json<SignResponse>(
      await t.sign({ name: 'r.bin', size: bytes.length }),
      201,
    );
    const [p1, p2, p3] = signed.parts as [
      SignResponse['parts'][number],
      SignResponse['parts'][number],
      SignResponse['parts'][number],
    ];
    const first = {
      etag: await partAccepted(await t.putPart(p1, partSlice(bytes, signed, 1)), p1),
    };
    await partAccepted(await t.putPart(p3, partSlice(bytes, signed, 3)), p3);
    await expectError(await t.complete(signed.id), 409, 'upload_incomplete', {
      missingParts: [2],
      mismatchedParts: [],
    });

    const state = await json<UploadState>(await t.state(signed.id));
    assert.equal(state.status, 'pending');
    assert.equal(state.partSize, PART);
    assert.deepEqual(
      state.parts.map((part) => [part.partNumber, part.size, part.etag !== null]),
      [
        [1, PART, true],
        [2, PART, false],
        [3, PART, true],
      ],
    );
    assert.equal(state.parts[0]?.etag, first.etag);
    const missing = state.parts.find((part) => part.etag === null);
    assert.ok(missing?.url && missing.headers);
    await partAccepted(
      await fetch(missing.url, {
        method: 'PUT',
        headers: missing.headers,
        body: partSlice(bytes, signed, 2),
      }),
      missing,
    );

    await expectError(
      await t.complete(signed.id, { parts: [{ partNumber: 1, etag: '"not-it"' }] }),
      409,
      'upload_incomplete',
      { missingParts: [], mismatchedParts: [1] },
    );
    await expectError(await t.complete(signed.id, { parts: 'all' }), 400, 'invalid_request');
    await expectError(
      await t.complete(signed.id, { parts: [{ partNumber: 'one' }] }),
      400,
      'invalid_request',
    );

    // Re-sending a part replaces it (new bytes, new ETag).
    const replaced = patternBytes(PART, 77);
    const second = { etag: await partAccepted(await t.putPart(p2, replaced), p2) };
    const record = await json<FileRecord>(await t.complete(signed.id));
    const served = Buffer.from(await (await fetch(publicUrlOf(record))).arrayBuffer());
    assert.ok(served.subarray(PART, 2 * PART).equals(replaced));
    assert.ok(served.subarray(0, PART).equals(partSlice(bytes, signed, 1)));
    assert.notEqual(second.etag, first.etag);

    const done = await json<UploadState>(await t.state(signed.id));
    assert.equal(done.status, 'ready');
    assert.ok(done.parts.every((part) => part.etag !== null && part.url === undefined));
  });

  it('keeps uploads per project and answers unknown ids with not_found', async () => {
    const signed = await json<SignResponse>(await t.sign({ name: 'c', size: 10 }), 201);
    const other = await t.otherProject();
    await expectError(
      await t.complete(signed.id, undefined, { key: other.secretKey }),
      404,
      'not_found',
    );
    await expectError(await t.state(signed.id, { key: other.secretKey }), 404, 'not_found');
    await expectError(await t.api('/v1/uploads/nope'), 404, 'not_found');
    await expectError(await t.complete('nope'), 404, 'not_found');
    // A one-request upload has no multi-step state.
    const single = await json<{ id: string }>(
      await t.api('/v1/upload', { method: 'POST', body: 'x' }),
      201,
    );
    await expectError(await t.state(single.id), 404, 'not_found');
  });
});

describe('GET /v1/uploads/:id of an import: the one who started it follows it', () => {
  let t: TestService;
  let remote: { url: string; server: Server };
  /** Bodies held back by /slow until a test lets them go. */
  const held = new Set<ServerResponse>();
  const BYTES = Buffer.alloc(64 * 1024, 3);

  before(async () => {
    remote = await serveRemote(PUBLIC_STAND_IN, (request, response) => {
      if (request.url === '/slow') {
        // Half now, the rest when the test says: progress can be seen meanwhile.
        response.writeHead(200, { 'content-length': String(BYTES.length) });
        response.write(BYTES.subarray(0, BYTES.length / 2));
        held.add(response);
      } else if (request.url === '/whole.bin') {
        response.end(BYTES);
      } else {
        response.writeHead(404).end('no');
      }
    });
    t = await startTestService(
      { FILEHOST_IMPORT_ALLOW_PRIVATE: 'false' },
      { importTargetForTests: { treatAsPublic: [PUBLIC_STAND_IN] } },
    );
  });

  after(async () => {
    for (const response of held) response.destroy();
    await t.close();
    remote.server.close();
  });

  const release = () => {
    for (const response of held) response.end(BYTES.subarray(BYTES.length / 2));
    held.clear();
  };

  const mint = async (): Promise<string> =>
    (
      await json<UploadTokenResponse>(
        await t.api('/v1/upload-tokens', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ maxFiles: 10 }),
        }),
        201,
      )
    ).token;

  const start = async (url: string, key: string, origin?: string) =>
    json<ImportResponse>(
      await t.api('/v1/uploads/import', {
        method: 'POST',
        key,
        origin,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url }),
      }),
      202,
    );

  const follow = (id: string, key: string, uploadToken?: string, origin?: string) =>
    t.api(`/v1/uploads/${id}`, {
      key,
      origin,
      headers: uploadToken === undefined ? {} : { 'X-Upload-Token': uploadToken },
    });

  /** Follows the import as a token-holding page does, until it has ended. */
  const settle = async (id: string, key: string, uploadToken: string): Promise<FileRecord> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { file } = await json<ImportState>(await follow(id, key, uploadToken));
      if (file.status !== 'pending') return file;
      assert.ok(Date.now() < deadline, `import ${id} still pending`);
      await delay(100);
    }
  };

  it('shows an upload token its import: progress, then the ready record; files stay out of its scope', async () => {
    const token = await mint();
    const started = await start(`${remote.url}/slow`, token);
    assert.equal(started.file.status, 'pending');
    assert.match(started.uploadToken, /^[A-Za-z0-9_-]{22,}$/);
    // The token may not read files: following is GET /v1/uploads/:id.
    await expectError(
      await t.api(`/v1/files/${started.file.id}`, { key: token }),
      403,
      'token_scope',
    );

    let seen: FileRecord | null = null;
    const deadline = Date.now() + 10_000;
    while (!seen) {
      const { file } = await json<ImportState>(
        await follow(started.file.id, token, started.uploadToken, ALLOWED_ORIGIN),
      );
      if ((file.importProgress?.receivedBytes ?? 0) > 0) seen = file;
      else {
        assert.ok(Date.now() < deadline, 'progress was never shown');
        await delay(100);
      }
    }
    assert.equal(seen.status, 'pending');
    assert.deepEqual(seen.importProgress, {
      receivedBytes: BYTES.length / 2,
      totalBytes: BYTES.length,
    });
    release();
    const ready = await settle(started.file.id, token, started.uploadToken);
    assert.equal(ready.status, 'ready');
    assert.equal(ready.size, BYTES.length);
    assert.equal(ready.importProgress, undefined);
    // The same record a key reads.
    assert.deepEqual(ready, await json<FileRecord>(await t.api(`/v1/files/${ready.id}`)));
    const served = Buffer.from(await (await fetch(publicUrlOf(ready))).arrayBuffer());
    assert.ok(served.equals(BYTES));
  });

  it("answers anyone without the import's token as an unknown id: another upload token, the publishable key, another project", async () => {
    const token = await mint();
    const started = await start(`${remote.url}/whole.bin`, token);
    const { id } = started.file;
    const other = await mint();
    await expectError(await follow(id, other), 404, 'not_found');
    await expectError(await follow(id, other, 'A'.repeat(22)), 404, 'not_found');
    // Its own upload token is no key to it either: the import's token is.
    await expectError(await follow(id, token), 404, 'not_found');
    await expectError(
      await follow(id, t.publishableKey, undefined, ALLOWED_ORIGIN),
      404,
      'not_found',
    );
    const stranger = await t.otherProject();
    await expectError(await follow(id, stranger.secretKey, started.uploadToken), 404, 'not_found');
    // The publishable key of the page that holds the import's token may follow it; the
    // secret key needs no token.
    const viaKey = await json<ImportState>(
      await follow(id, t.publishableKey, started.uploadToken, ALLOWED_ORIGIN),
    );
    assert.equal(viaKey.file.id, id);
    assert.equal((await settle(id, t.secretKey, '')).status, 'ready');
  });

  it('lets an expired upload token follow what it started, and start nothing more', async () => {
    const token = await mint();
    const started = await start(`${remote.url}/slow`, token);
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
    const pending = await json<ImportState>(
      await follow(started.file.id, expired, started.uploadToken),
    );
    assert.equal(pending.file.status, 'pending');
    release();
    assert.equal((await settle(started.file.id, expired, started.uploadToken)).status, 'ready');
    await expectError(
      await t.api('/v1/uploads/import', {
        method: 'POST',
        key: expired,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${remote.url}/whole.bin` }),
      }),
      401,
      'token_expired',
    );
  });

  it('shows a failed import as failed, with importError, while its record exists; a cancelled one is gone', async () => {
    const token = await mint();
    const started = await start(`${remote.url}/missing`, token);
    const failed = await settle(started.file.id, token, started.uploadToken);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.importError?.code, 'import_http_error');
    assert.equal(failed.importError?.status, 404);
    assert.ok((failed.importError?.message ?? '').length > 0);
    assert.deepEqual(failed, await json<FileRecord>(await t.api(`/v1/files/${failed.id}`)));
    // Still answered as failed when asked again, and still only to the import's token.
    const again = await json<ImportState>(await follow(failed.id, token, started.uploadToken));
    assert.equal(again.file.importError?.code, 'import_http_error');
    await expectError(await follow(failed.id, token), 404, 'not_found');

    const cancelled = await start(`${remote.url}/slow`, token);
    assert.equal((await t.api(`/v1/files/${cancelled.file.id}`, { method: 'DELETE' })).status, 204);
    await expectError(
      await follow(cancelled.file.id, token, cancelled.uploadToken),
      404,
      'not_found',
    );
  });
});

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
