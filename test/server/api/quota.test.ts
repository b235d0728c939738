// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { routes } from '../../../src/api/routes.js';
import type { FileRecord, SignResponse, Usage } from '../../../src/api/types.js';
import { type RunningService, startService } from '../../../src/server/start/service.js';
import { SCALE } from '../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

/** A sign of one file on `apiUrl`: the raw answer. */
const signOn = (apiUrl: string, key: string, size: number, name = 'f.bin') =>
  fetch(`${apiUrl}${routes.sign()}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, size }),
  });

describe('quotas and usage', () => {
  let t: TestService;
  const usage = async (service = t) => json<Usage>(await service.api('/v1/usage'));

  before(async () => {
    t = await startTestService({
      FILEHOST_STORAGE_QUOTA: '1000',
      FILEHOST_MAX_PENDING_UPLOADS: '100',
    });
  });
  after(() => t.close());

  it("answers the project's usage and limits to the secret key only", async () => {
    assert.deepEqual(await usage(), {
      storedBytes: 0,
      files: 0,
      pendingBytes: 0,
      pendingUploads: 0,
      anonymousBytes: 0,
      variantBytes: 0,
      quota: { storageBytes: 1000, pendingUploads: 100 },
    });
    await expectError(
      await t.api('/v1/usage', { key: t.publishableKey, origin: ALLOWED_ORIGIN }),
      403,
      'secret_key_required',
    );
    // The plans' defaults: free 10 GB and 1,000 pending uploads; paid none.
    const other = await t.otherProject();
    assert.deepEqual(
      (await json<Usage>(await t.api('/v1/usage', { key: other.secretKey }))).quota,
      {
        storageBytes: 10_000_000_000,
        pendingUploads: 1000,
      },
    );
    await t.service.context.db.updateProject(other.project.id, { plan: 'paid' });
    assert.deepEqual(
      (await json<Usage>(await t.api('/v1/usage', { key: other.secretKey }))).quota,
      {
        storageBytes: null,
        pendingUploads: null,
      },
    );
  });

  it('of 20 overlapping signs that together pass the quota, exactly those that fit succeed', async () => {
    const room = 1000 - (await usage()).pendingBytes - (await usage()).storedBytes;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => signOn(t.apiUrl, t.secretKey, 100)),
    );
    const signed = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status === 403);
    assert.equal(signed.length, Math.floor(room / 100));
    assert.equal(signed.length + refused.length, 20);
    for (const answer of refused) {
      await expectError(answer, 403, 'quota_exceeded', { limit: 'storage', quota: 1000 });
    }
    const now = await usage();
    assert.equal(now.pendingBytes, 1000);
    assert.equal(now.pendingUploads, signed.length);
    // Each pending upload cancelled gives its room back.
    for (const answer of signed) {
      const { id } = (await answer.json()) as SignResponse;
      assert.equal((await t.api(`/v1/files/${id}`, { method: 'DELETE' })).status, 204);
    }
    assert.equal((await usage()).pendingBytes, 0);
  });

  it('refuses a batch that would pass it whole, naming the first entry over, creating nothing', async () => {
    const listed = async () =>
      (await json<{ files: unknown[] }>(await t.api('/v1/files'))).files.length;
    const before = await listed();
    await expectError(
      await t.sign({
        files: [400, 400, 400].map((size, index) => ({ name: `b${index}`, size })),
      }),
      403,
      'quota_exceeded',
      { index: 2 },
    );
    assert.equal(await listed(), before);
    assert.equal((await usage()).pendingBytes, 0);
  });

  it('moves a completed upload from pending to stored, and counts one-request uploads', async () => {
    const signed = await json<SignResponse>(await signOn(t.apiUrl, t.secretKey, 300), 201);
    const part = signed.parts[0] as SignResponse['parts'][number];
    await partAccepted(
      await fetch(part.url, { method: 'PUT', headers: part.headers, body: patternBytes(300) }),
      part,
    );
    assert.deepEqual((await usage()).pendingBytes, 300);
    await json<FileRecord>(await t.complete(signed.id));
    const one = await t.api('/v1/upload', { method: 'POST', body: patternBytes(200) });
    const uploaded = await json<{ id: string }>(one, 201);
    const now = await usage();
    assert.deepEqual(
      { storedBytes: now.storedBytes, files: now.files, pendingBytes: now.pendingBytes },
      { storedBytes: 500, files: 2, pendingBytes: 0 },
    );
    // Over what is left (500): refused from its Content-Length, before a byte is stored.
    const before = await t.stored();
    await expectError(
      await t.api('/v1/upload', { method: 'POST', body: patternBytes(501) }),
      403,
      'quota_exceeded',
    );
    assert.deepEqual(await t.stored(), before);
    // Deleting ready files gives their room back.
    for (const id of [signed.id, uploaded.id]) {
      assert.equal((await t.api(`/v1/files/${id}`, { method: 'DELETE' })).status, 204);
    }
    assert.deepEqual((await usage()).storedBytes, 0);
  });
});

describe('the pending-upload cap', () => {
  it('of 12 overlapping signs at a cap of 5, exactly 5 succeed; completing one makes room', async () => {
    const t = await startTestService({ FILEHOST_MAX_PENDING_UPLOADS: '5' });
    try {
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => signOn(t.apiUrl, t.secretKey, 10)),
      );
      const signed = answers.filter((answer) => answer.status === 201);
      assert.equal(signed.length, 5);
      for (const answer of answers.filter((a) => a.status !== 201)) {
        await expectError(answer, 403, 'quota_exceeded', { limit: 'pending_uploads' });
      }
      const first = (await signed[0]?.json()) as SignResponse;
      const part = first.parts[0] as SignResponse['parts'][number];
      await partAccepted(
        await fetch(part.url, { method: 'PUT', headers: part.headers, body: patternBytes(10) }),
        part,
      );
      await json<FileRecord>(await t.complete(first.id));
      assert.equal((await signOn(t.apiUrl, t.secretKey, 10)).status, 201);
      assert.equal((await signOn(t.apiUrl, t.secretKey, 10)).status, 403);
    } finally {
      await t.close();
    }
  });
});

describe('quotas across two instances on one PostgreSQL', {
  skip: !SCALE && 'the scale deployment',
}, () => {
  let t: TestService;
  let second: RunningService;
  let dataDir: string;
  before(async () => {
    t = await startTestService({ FILEHOST_STORAGE_QUOTA: '1000' });
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-second-'));
    // The same database, bucket, keys and settings: another instance of the same service.
    second = await startService({ ...t.service.context.config, dataDir, apiPort: 0, cdnPort: 0 });
  });
  after(async () => {
    await second?.close();
    await t?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('of 20 overlapping signs on both instances, exactly those that fit succeed', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        signOn(index % 2 ? second.apiUrl : t.apiUrl, t.secretKey, 100),
      ),
    );
    assert.equal(answers.filter((answer) => answer.status === 201).length, 10);
    assert.equal(answers.filter((answer) => answer.status === 403).length, 10);
    for (const answer of answers) await answer.arrayBuffer();
    assert.equal((await json<Usage>(await t.api('/v1/usage'))).pendingBytes, 1000);
  });
});
