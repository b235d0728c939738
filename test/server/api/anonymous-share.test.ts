// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type {
  FileRecord,
  ImportResponse,
  SignResponse,
  UploadResponse,
  UploadTokenResponse,
  Usage,
} from '../../../src/api/types.js';
import { bytesOfType } from '../../helpers/bytes.js';
import { reportOnTimeout } from '../../helpers/pending.js';
import { PUBLIC_STAND_IN, serveRemote } from '../../helpers/remote-server.js';
import { ageFiles } from '../../helpers/row-clock.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const MB = 1_000_000;
const HOUR = 3_600_000;

/**
 * Each test's and hook's limit: several times what the slowest takes on a loaded CI (about
 * 14 s), so a hang fails the test it is in, saying what was still pending, instead of the
 * whole file at the runner's 600 s (a CI run lost it so once, in the overlapping uploads).
 */
const TIMEOUT_MS = 120_000;
const limit = { timeout: TIMEOUT_MS };
beforeEach(reportOnTimeout(TIMEOUT_MS));

/**
 * The service trusts one proxy hop (`FILEHOST_TRUST_PROXY=1`) and the test is that hop: the
 * address it puts in `X-Forwarded-For` is the client's, as nginx's would be (through a real
 * nginx: `anonymous-share-at-scale.test.ts`).
 */
const visitor = (t: TestService, address: string) => ({
  key: t.publishableKey,
  origin: ALLOWED_ORIGIN,
  headers: { 'X-Forwarded-For': address },
});

/** A one-request upload of `size` bytes, as `init` (a key, an origin, headers). */
const upload = (
  t: TestService,
  size: number,
  init: { key?: string; origin?: string; headers?: Record<string, string> } = {},
) =>
  t.api('/v1/upload', {
    method: 'POST',
    key: init.key,
    origin: init.origin,
    headers: {
      ...init.headers,
      'Content-Type': 'application/octet-stream',
      'X-Filename': 'visitor.bin',
    },
    body: new Uint8Array(size),
  });

const usageOf = async (t: TestService) => json<Usage>(await t.api('/v1/usage'));
const statusOf = async (response: Response) => {
  await response.arrayBuffer();
  return response.status;
};

const mint = async (t: TestService, policy: Record<string, unknown> = {}) =>
  json<UploadTokenResponse>(
    await t.api('/v1/upload-tokens', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(policy),
    }),
    201,
  );

describe('the owner is never locked out by anonymous files', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService({
      FILEHOST_TRUST_PROXY: '1',
      FILEHOST_RATE_LIMIT: '100000',
      FILEHOST_STORAGE_QUOTA: String(3 * MB),
    });
  }, limit);
  after(() => t.close(), limit);

  it(
    'seven anonymous 400 KB uploads fill half a 3 MB project; the secret key, a sign and a token still upload',
    limit,
    async () => {
      // The attack as reported: seven one-request uploads with the publishable key.
      const answers: Response[] = [];
      for (let index = 1; index <= 7; index++) {
        answers.push(await upload(t, 400_000, visitor(t, `198.51.100.${index}`)));
      }
      const first = await json<UploadResponse>(answers[0] as Response, 201);
      assert.equal(first.size, 400_000);
      assert.equal(await statusOf(answers[1] as Response), 201);
      assert.equal(await statusOf(answers[2] as Response), 201);
      const refused = await expectError(answers[3] as Response, 403, 'quota_exceeded', {
        limit: 'anonymous_share',
        quota: 1_500_000,
        available: 300_000,
      });
      assert.match(refused.message, /300000 bytes of it are left/);
      for (const answer of answers.slice(4)) {
        await expectError(answer, 403, 'quota_exceeded', { limit: 'anonymous_share' });
      }
      // Ready anonymous files count, and are shown as such.
      const held = await usageOf(t);
      assert.deepEqual(
        [held.storedBytes, held.pendingBytes, held.anonymousBytes],
        [1_200_000, 0, 1_200_000],
      );

      // The owner's uploads: the secret key, a secret-key sign, an upload token.
      await json<UploadResponse>(await upload(t, 400_000), 201);
      await json<SignResponse>(await t.sign({ name: 'owner.bin', size: 400_000 }), 201);
      const { token } = await mint(t);
      await json<UploadResponse>(await upload(t, 400_000, { key: token }), 201);
      assert.equal(
        (await usageOf(t)).anonymousBytes,
        1_200_000,
        "the owner's files are not anonymous",
      );

      // An eighth anonymous one still meets the share, not the project's quota (2.4 MB used).
      await expectError(
        await upload(t, 400_000, visitor(t, '198.51.100.8')),
        403,
        'quota_exceeded',
        {
          limit: 'anonymous_share',
          quota: 1_500_000,
          available: 300_000,
        },
      );
      // The rest of the quota is the owner's, to the last byte.
      await json<SignResponse>(await t.sign({ name: 'rest.bin', size: 600_000 }), 201);
      await expectError(await t.sign({ name: 'over.bin', size: 1 }), 403, 'quota_exceeded', {
        limit: 'storage',
      });

      // Deleting an anonymous file gives its room back, to the next visitor.
      assert.equal(await statusOf(await t.api(`/v1/files/${first.id}`, { method: 'DELETE' })), 204);
      assert.equal((await usageOf(t)).anonymousBytes, 800_000);
      await json(await upload(t, 400_000, visitor(t, '198.51.100.9')), 201);
      const full = await usageOf(t);
      assert.deepEqual(
        [full.anonymousBytes, full.storedBytes + full.pendingBytes],
        [1_200_000, 3_000_000],
      );
    },
  );

  it(
    'keeps each project to its own share: 0 refuses every anonymous upload, the owner unharmed',
    limit,
    async () => {
      const other = await t.otherProject();
      const db = t.service.context.db;
      await db.updateProject(other.project.id, { storageQuota: 1 * MB, anonymousShare: 0.2 });
      const as = (address: string) => ({
        key: other.publishableKey,
        origin: ALLOWED_ORIGIN,
        headers: { 'X-Forwarded-For': address },
      });
      await json(await upload(t, 200_000, as('192.0.2.50')), 201);
      await expectError(await upload(t, 1, as('192.0.2.51')), 403, 'quota_exceeded', {
        limit: 'anonymous_share',
        quota: 200_000,
        available: 0,
      });
      await db.updateProject(other.project.id, { anonymousShare: 0 });
      await expectError(
        await t.sign({ name: 'a', size: 1 }, as('192.0.2.52')),
        403,
        'quota_exceeded',
        { limit: 'anonymous_share', quota: 0 },
      );
      await json(await upload(t, 800_000, { key: other.secretKey }), 201);
    },
  );
});

describe('FILEHOST_ANONYMOUS_SHARE sets the default project share', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({
      FILEHOST_TRUST_PROXY: '1',
      FILEHOST_STORAGE_QUOTA: String(1 * MB),
      FILEHOST_MAX_PENDING_UPLOADS: '10',
      FILEHOST_ANONYMOUS_SHARE: '0.3',
    });
  }, limit);
  after(() => t.close(), limit);

  it('of the quota and of the pending cap', limit, async () => {
    await json(await t.signMany([{ name: 'a', size: 300_000 }], visitor(t, '192.0.2.1')), 201);
    await expectError(
      await t.sign({ name: 'b', size: 1 }, visitor(t, '192.0.2.2')),
      403,
      'quota_exceeded',
      { limit: 'anonymous_share', quota: 300_000 },
    );
    await expectError(
      await t.signMany(
        Array.from({ length: 3 }, (_, index) => ({ name: `c${index}`, size: 0 + 1 })),
        visitor(t, '192.0.2.3'),
      ),
      403,
      'quota_exceeded',
      { limit: 'anonymous_share' },
    );
    await json(await t.sign({ name: 'owner', size: 700_000 }), 201);
  });
});

describe('one client address: 1 GB in any 24 hours, an IPv6 /64 as one address', () => {
  let t: TestService;
  const signAs = (address: string, size: number, name = 'f.bin') =>
    t.sign({ name, size }, visitor(t, address));

  before(async () => {
    // The free plan's own limits: 10 GB, of which 5 GB anonymous; 1 GB per address a day.
    t = await startTestService({ FILEHOST_TRUST_PROXY: '1', FILEHOST_RATE_LIMIT: '100000' });
  }, limit);
  after(() => t.close(), limit);

  it(
    'counts pending and ready uploads over many requests, frees what is deleted, then the day passes',
    limit,
    async () => {
      const a1 = '2001:db8:1:2::1';
      const a2 = '2001:db8:1:2:aaaa:bbbb:cccc:dddd';
      const elsewhere = '2001:db8:1:3::1';
      // 1 MB made ready, then 899 MB more in nine signs, from two addresses of one /64.
      await json<UploadResponse>(await upload(t, 1 * MB, visitor(t, a1)), 201);
      const signed: SignResponse[] = [];
      for (let index = 0; index < 9; index++) {
        signed.push(
          await json<SignResponse>(await signAs(index % 2 ? a1 : a2, 100 * MB, `p${index}`), 201),
        );
      }
      await json(await signAs(a2, 99 * MB), 201);
      const refused = await expectError(await signAs(a1, 1), 403, 'quota_exceeded', {
        limit: 'address_bytes',
        quota: 1_000_000_000,
        available: 0,
      });
      assert.match(refused.message, /in any 24 hours/);
      // Another /64 has its own allowance; IPv4-mapped forms are the IPv4 address.
      await json(await signAs(elsewhere, 100 * MB), 201);
      await json(
        await t.signMany(
          Array.from({ length: 6 }, (_, index) => ({ name: `m${index}`, size: 100 * MB })),
          visitor(t, '::ffff:192.0.2.7'),
        ),
        201,
      );
      await expectError(
        await t.signMany(
          Array.from({ length: 5 }, (_, index) => ({ name: `n${index}`, size: 100 * MB })),
          visitor(t, '192.0.2.7'),
        ),
        403,
        'quota_exceeded',
        { limit: 'address_bytes', available: 400 * MB, index: 4 },
      );
      // A pending upload deleted holds nothing.
      const dropped = signed[0] as SignResponse;
      assert.equal(
        await statusOf(await t.api(`/v1/files/${dropped.id}`, { method: 'DELETE' })),
        204,
      );
      await json(await signAs(a1, 100 * MB), 201);
      await expectError(await signAs(a2, 1), 403, 'quota_exceeded', { limit: 'address_bytes' });

      // A day later, what was started before no longer counts: ready or still pending.
      await ageFiles(
        { dataDir: t.dataDir, databaseUrl: t.service.context.config.databaseUrl },
        24 * HOUR + 60_000,
      );
      await json(
        await t.signMany(
          Array.from({ length: 10 }, (_, index) => ({ name: `d${index}`, size: 100 * MB })),
          visitor(t, a2),
        ),
        201,
      );
      await expectError(await signAs(a1, 1), 403, 'quota_exceeded', { limit: 'address_bytes' });
    },
  );

  it('50 overlapping signs from one /64 never pass its allowance', limit, async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        signAs(`2001:db8:99:1:${index.toString(16)}::1`, 100 * MB),
      ),
    );
    const statuses = await Promise.all(answers.map(statusOf));
    assert.equal(statuses.filter((status) => status === 201).length, 10, statuses.join(' '));
    assert.equal(statuses.filter((status) => status === 403).length, 40);
  });
});

describe('50 overlapping anonymous uploads never pass the share', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({
      FILEHOST_TRUST_PROXY: '1',
      FILEHOST_RATE_LIMIT: '100000',
      FILEHOST_STORAGE_QUOTA: String(3 * MB),
    });
  }, limit);
  after(() => t.close(), limit);

  it(
    "exactly fifteen of 100 KB fit 1.5 MB; the owner's ten beside them all succeed",
    limit,
    async () => {
      const anonymous = Array.from({ length: 50 }, (_, index) =>
        upload(t, 100_000, visitor(t, `203.0.113.${index + 1}`)),
      );
      const owners = Array.from({ length: 10 }, () => upload(t, 100_000));
      const [visitors, own] = await Promise.all([
        Promise.all((await Promise.all(anonymous)).map(statusOf)),
        Promise.all((await Promise.all(owners)).map(statusOf)),
      ]);
      assert.equal(visitors.filter((status) => status === 201).length, 15, visitors.join(' '));
      assert.ok(visitors.every((status) => status === 201 || status === 403));
      assert.deepEqual(own, Array(10).fill(201));
      const usage = await usageOf(t);
      assert.deepEqual([usage.anonymousBytes, usage.storedBytes], [1_500_000, 2_500_000]);
    },
  );
});

describe('anonymous imports reserve within the share and the address allowance', () => {
  let t: TestService;
  let remote: Awaited<ReturnType<typeof serveRemote>>;
  // A whole PNG: a damaged one would be refused at ingest (metadata_unreadable).
  const PNG = Buffer.from(bytesOfType('image/png', 264));

  before(async () => {
    remote = await serveRemote(PUBLIC_STAND_IN, (_request, response) => {
      response.setHeader('content-type', 'image/png');
      response.end(PNG);
    });
    t = await startTestService(
      {
        FILEHOST_TRUST_PROXY: '1',
        FILEHOST_RATE_LIMIT: '100000',
        FILEHOST_STORAGE_QUOTA: String(3 * MB),
        FILEHOST_IMPORT_ALLOW_PRIVATE: 'false',
      },
      { importTargetForTests: { treatAsPublic: [PUBLIC_STAND_IN] } },
    );
  }, limit);
  after(async () => {
    await t.close();
    remote.server.close();
  }, limit);

  const importAs = (address: string) =>
    t.api('/v1/uploads/import', {
      ...visitor(t, address),
      method: 'POST',
      headers: { ...visitor(t, address).headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `${remote.url}/cat.png` }),
    });

  const settled = async (id: string): Promise<FileRecord> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const record = await json<FileRecord>(await t.api(`/v1/files/${id}`));
      if (record.status !== 'pending') return record;
      assert.ok(Date.now() < deadline, `import ${id} still pending`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it(
    'is accepted while room is left in the share, holding no more than is left',
    limit,
    async () => {
      // Nothing held: the quota's 3 MB is more than the 1.5 MB share; the import used to
      // hold the quota's room and be refused by the share it had not touched.
      const { file } = await json<ImportResponse>(await importAs('192.0.2.10'), 202);
      const ready = await settled(file.id);
      assert.equal(ready.status, 'ready');
      assert.equal((await usageOf(t)).anonymousBytes, PNG.length);
      // With only 1,000 bytes left of the share, an import of a 264-byte file still fits.
      const fill = 1_500_000 - PNG.length - 1_000;
      await json(await upload(t, fill, visitor(t, '192.0.2.11')), 201);
      const second = await json<ImportResponse>(await importAs('192.0.2.12'), 202);
      assert.equal((await settled(second.file.id)).status, 'ready');
      // No room left at all: refused, and its message says so.
      await json(await upload(t, 1_000 - PNG.length, visitor(t, '192.0.2.13')), 201);
      const refused = await expectError(await importAs('192.0.2.14'), 403, 'quota_exceeded', {
        limit: 'anonymous_share',
        available: 0,
      });
      assert.match(refused.message, /0 bytes of it are left/);
    },
  );
});

describe('rate limits count an IPv6 /64 as one client', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_TRUST_PROXY: '1', FILEHOST_RATE_LIMIT: '3' });
  }, limit);
  after(() => t.close(), limit);

  const list = async (address: string) =>
    statusOf(await t.api('/v1/files?limit=1', visitor(t, address)));

  it(
    'shares one bucket across a /64, and an IPv4 address with its IPv4-mapped form',
    limit,
    async () => {
      const oneSubnet = ['2001:db8:a:b::1', '2001:db8:a:b::2', '2001:db8:a:b:ffff:ffff:ffff:ffff'];
      for (const address of oneSubnet) assert.equal(await list(address), 200, address);
      assert.equal(await list('2001:DB8:A:B:0:0:0:99'), 429);
      assert.equal(await list('2001:db8:a:c::1'), 200, 'the next /64 is another client');
      for (const address of ['::ffff:192.0.2.1', '::ffff:c000:201', '192.0.2.1']) {
        assert.equal(await list(address), 200, address);
      }
      assert.equal(await list('192.0.2.1'), 429);
      assert.equal(await list('192.0.2.2'), 200, 'another IPv4 address is another client');
    },
  );
});

describe('every way in counts toward the share: the batch upload too', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({
      FILEHOST_TRUST_PROXY: '1',
      FILEHOST_RATE_LIMIT: '100000',
      FILEHOST_STORAGE_QUOTA: String(3 * MB),
    });
  }, limit);
  after(() => t.close(), limit);

  const batch = (
    count: number,
    size: number,
    init: { key?: string; origin?: string; headers?: Record<string, string> } = {},
  ) => {
    const form = new FormData();
    form.append(
      'files',
      JSON.stringify(
        Array.from({ length: count }, (_, index) => ({ name: `b${index}.bin`, size })),
      ),
    );
    for (let index = 0; index < count; index++) {
      form.append('file', new Blob([new Uint8Array(size)]), `b${index}.bin`);
    }
    return t.api('/v1/upload/batch', { ...init, method: 'POST', body: form });
  };

  it(
    'an anonymous batch fills the share; then sign, one-request and batch uploads are refused, the owner batch goes',
    limit,
    async () => {
      await json(await batch(3, 400_000, visitor(t, '192.0.2.30')), 200);
      assert.equal((await usageOf(t)).anonymousBytes, 1_200_000);
      await expectError(
        await t.signMany([{ name: 's', size: 300_001 }], visitor(t, '192.0.2.32')),
        403,
        'quota_exceeded',
        { limit: 'anonymous_share', available: 300_000 },
      );
      await expectError(await upload(t, 300_001, visitor(t, '192.0.2.33')), 403, 'quota_exceeded', {
        limit: 'anonymous_share',
      });
      await json(await batch(3, 400_000), 200);
      // Last: a batch refused before its parts are read leaves its connection unusable.
      await expectError(await batch(2, 200_000, visitor(t, '192.0.2.31')), 403, 'quota_exceeded', {
        limit: 'anonymous_share',
        index: 1,
      });
    },
  );
});
