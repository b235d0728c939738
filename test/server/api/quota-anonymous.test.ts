// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SignBatchResponse, UploadTokenResponse, Usage } from '../../../src/api/types.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const MB = 1_000_000;

/**
 * The service trusts one proxy hop (`FILEHOST_TRUST_PROXY=1`) and the test is that hop: the
 * address it puts in `X-Forwarded-For` is the client's, as nginx's would be (the same
 * through a real nginx: `tokens-at-scale.test.ts`).
 */
const anonymous = (address: string) => ({
  key: null as string | null,
  origin: ALLOWED_ORIGIN,
  headers: { 'X-Forwarded-For': address },
});

const files = (count: number, size: number) =>
  Array.from({ length: count }, (_, index) => ({ name: `f${index}.bin`, size }));

describe('anonymous reservations cannot lock a project', () => {
  let t: TestService;
  const as = (address: string) => ({ ...anonymous(address), key: t.publishableKey });
  const usage = async () => json<Usage>(await t.api('/v1/usage'));
  const mint = async (policy: Record<string, unknown> = {}) =>
    json<UploadTokenResponse>(
      await t.api('/v1/upload-tokens', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(policy),
      }),
      201,
    );

  before(async () => {
    // The free plan's own limits: 10 GB and 1,000 pending uploads.
    t = await startTestService({ FILEHOST_TRUST_PROXY: '1', FILEHOST_RATE_LIMIT: '100000' });
  });
  after(() => t.close());

  it('the two-request lock now leaves the project usable: secret-key and token uploads still sign', async () => {
    // The attack as it was: two batches of 100 x 100 MB from one address, 20 GB of promises.
    const first = await expectError(
      await t.signMany(files(100, 100 * MB), as('198.51.100.7')),
      403,
      'quota_exceeded',
      { limit: 'address_bytes', quota: 1_000_000_000, index: 10 },
    );
    assert.match(first.message, /one address/);
    await expectError(
      await t.signMany(files(100, 100 * MB), as('198.51.100.7')),
      403,
      'quota_exceeded',
      { limit: 'address_bytes' },
    );
    assert.equal((await usage()).pendingBytes, 0, 'a refused batch reserves nothing');
    // From many addresses, all anonymous reservations together reach half the quota only.
    for (let index = 1; index <= 5; index++) {
      await json<SignBatchResponse>(
        await t.signMany(files(10, 100 * MB), as(`203.0.113.${index}`)),
        201,
      );
    }
    const share = await expectError(
      await t.signMany(files(10, 100 * MB), as('203.0.113.6')),
      403,
      'quota_exceeded',
      { limit: 'anonymous_share', quota: 5_000_000_000, available: 0, index: 0 },
    );
    assert.match(share.message, /share of the project's quota/);
    await expectError(
      await t.sign({ name: 'one', size: 1 }, as('203.0.113.6')),
      403,
      'quota_exceeded',
      { limit: 'anonymous_share' },
    );
    assert.equal((await usage()).pendingBytes, 5_000_000_000);
    // The backend's uploads have the other half.
    await json(await t.signMany(files(20, 100 * MB)), 201);
    const { token } = await mint();
    await json(await t.signMany(files(29, 100 * MB), { key: token }), 201);
    // ... and only the project's own quota stops them.
    await expectError(await t.signMany(files(2, 100 * MB), { key: token }), 403, 'quota_exceeded', {
      limit: 'storage',
      index: 1,
    });
    await json(await t.sign({ name: 'last', size: 100 * MB }), 201);
    await expectError(await t.sign({ name: 'over', size: 1 }), 403, 'quota_exceeded', {
      limit: 'storage',
    });
  });
});

describe('anonymous pending uploads: per address and in all', () => {
  let t: TestService;
  const as = (address: string) => ({ ...anonymous(address), key: t.publishableKey });

  before(async () => {
    t = await startTestService({
      FILEHOST_TRUST_PROXY: '1',
      FILEHOST_RATE_LIMIT: '100000',
      FILEHOST_PLAN: 'paid',
      FILEHOST_MAX_PENDING_UPLOADS: '1000',
    });
  });
  after(() => t.close());

  it('one address may hold 200 pending uploads; another address has its own 200', async () => {
    await json(await t.signMany(files(100, 1), as('192.0.2.1')), 201);
    await json(await t.signMany(files(100, 1), as('192.0.2.1')), 201);
    await expectError(
      await t.sign({ name: 'x', size: 1 }, as('192.0.2.1')),
      403,
      'quota_exceeded',
      { limit: 'address_uploads', quota: 200, available: 0 },
    );
    await json(await t.sign({ name: 'y', size: 1 }, as('192.0.2.2')), 201);
    // The paid plan's largest file is 5 GiB: one address may hold twice that pending.
    await json(await t.signMany(files(2, 5 * 1024 ** 3), as('192.0.2.3')), 201);
    await expectError(
      await t.sign({ name: 'z', size: 1 }, as('192.0.2.3')),
      403,
      'quota_exceeded',
      { limit: 'address_bytes', quota: 2 * 5 * 1024 ** 3 },
    );
  });

  it('all anonymous pending uploads together hold at most half the pending cap', async () => {
    // 203 held so far; the anonymous share is 500.
    await json(await t.signMany(files(100, 1), as('192.0.2.4')), 201);
    await json(await t.signMany(files(100, 1), as('192.0.2.5')), 201);
    const refused = await expectError(
      await t.signMany(files(100, 1), as('192.0.2.6')),
      403,
      'quota_exceeded',
      { limit: 'anonymous_share', quota: 500, index: 97 },
    );
    assert.match(refused.message, /share of the project's cap/);
    // The share does not hold the secret key back.
    await json(await t.signMany(files(100, 1)), 201);
    const usage = await json<Usage>(await t.api('/v1/usage'));
    assert.equal(usage.pendingUploads, 403 + 100);
  });
});

describe('room held by a pending upload comes back at its expiresAt', () => {
  let t: TestService;
  const as = (address: string) => ({ ...anonymous(address), key: t.publishableKey });

  before(async () => {
    // Pending uploads expire 2 s after their sign; the sweeper would take a day more.
    t = await startTestService({
      FILEHOST_TRUST_PROXY: '1',
      FILEHOST_UPLOAD_LIFETIME: '2',
      FILEHOST_STORAGE_QUOTA: '1000',
      FILEHOST_MAX_PENDING_UPLOADS: '4',
    });
  });
  after(() => t.close());

  it("of the project's quota and of the anonymous caps, before the sweeper runs", async () => {
    const held = await json<SignBatchResponse>(
      await t.signMany(files(2, 250), as('192.0.2.9')),
      201,
    );
    await expectError(
      await t.sign({ name: 'x', size: 1 }, as('192.0.2.9')),
      403,
      'quota_exceeded',
      { limit: 'anonymous_share' },
    );
    await json(await t.signMany(files(2, 250)), 201);
    await expectError(await t.sign({ name: 'x', size: 1 }), 403, 'quota_exceeded');
    const expiresAt = Math.max(...held.uploads.map((upload) => upload.expiresAt));
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 2100));
    const usage = await json<Usage>(await t.api('/v1/usage'));
    assert.deepEqual([usage.pendingBytes, usage.pendingUploads], [0, 0]);
    await json(await t.signMany(files(2, 250), as('192.0.2.9')), 201);
    await json(await t.signMany(files(2, 250)), 201);
  });
});
