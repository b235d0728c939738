// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SignResponse } from '../../../src/api/types.js';
import { sweep } from '../../../src/server/uploads/sweeper.js';
import {
  expectError,
  json,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

describe('the sweeper', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  it('removes abandoned pending uploads with their bytes after expiry plus grace', async () => {
    const short = await startTestService({
      // Two seconds after its last part: long enough for the part PUT to arrive first.
      FILEHOST_UPLOAD_LIFETIME: '2',
      FILEHOST_PENDING_GRACE: '0',
    });
    try {
      const before = await short.stored();
      const signed = await json<SignResponse>(
        await short.sign({ name: 'left.bin', size: 10 }),
        201,
      );
      const part = signed.parts[0] as SignResponse['parts'][number];
      await partAccepted(
        await fetch(part.url, { method: 'PUT', headers: part.headers, body: patternBytes(10) }),
        part,
      );
      const during = await short.stored();
      assert.ok(
        during.some((path) => path.startsWith(`uploads/${signed.id}`)),
        'the upload is open in the store',
      );
      assert.deepEqual(await sweep(short.service.context), {
        expired: 0,
        deleted: 0,
        purged: 0,
        abandoned: 0,
      });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      assert.deepEqual(await sweep(short.service.context), {
        expired: 1,
        deleted: 0,
        purged: 1,
        abandoned: 0,
      });
      await expectError(await short.api(`/v1/files/${signed.id}`), 404, 'not_found');
      assert.deepEqual(await short.stored(), before);
    } finally {
      await short.close();
    }
  });
});
