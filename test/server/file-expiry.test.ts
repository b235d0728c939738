// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventListResponse } from '../../src/api/events.js';
import type {
  FileListResponse,
  FileRecord,
  SignResponse,
  UploadTokenResponse,
} from '../../src/api/types.js';
import { moveDeleteAt } from '../helpers/row-clock.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../helpers/service.js';

/** Polls `check` until it holds, for at most `ms`; the time it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return Date.now() - started;
}

describe('files that delete themselves (deleteAt)', () => {
  let t: TestService;
  const events = async () =>
    (await json<EventListResponse>(await t.api('/v1/events?limit=100'))).events;
  /** Signs (secret key, `deleteAfter`), sends and completes a small file. */
  const upload = async (extra: Record<string, unknown>): Promise<FileRecord> => {
    const bytes = patternBytes(500, 7);
    const signed = await json<SignResponse>(
      await t.sign({ name: 'soon.txt', size: bytes.length, type: 'text/plain', ...extra }),
      201,
    );
    const part = signed.parts[0] as SignResponse['parts'][number];
    await partAccepted(await t.putPart(part, bytes), part);
    return json<FileRecord>(await t.complete(signed.id));
  };

  before(async () => {
    // The sweep (and with it the look for files whose time came) every second.
    t = await startTestService({ FILEHOST_SWEEP_INTERVAL: '1' });
  });
  after(() => t.close());

  it('takes deleteAfter at sign from the secret key only, 60 s to 365 days', async () => {
    const record = await upload({ deleteAfter: 60 });
    assert.equal(record.deleteAt, record.createdAt + 60_000);
    await expectError(
      await t.sign(
        { name: 'a', size: 1, deleteAfter: 60 },
        { key: t.publishableKey, origin: ALLOWED_ORIGIN },
      ),
      403,
      'secret_key_required',
    );
    const minted = await json<UploadTokenResponse>(
      await t.api('/v1/upload-tokens', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      }),
      201,
    );
    await expectError(
      await t.sign({ name: 'a', size: 1, deleteAfter: 60 }, { key: minted.token }),
      403,
      'secret_key_required',
    );
    for (const deleteAfter of [59, 365 * 86_400 + 1, 1.5, '60']) {
      await expectError(await t.sign({ name: 'a', size: 1, deleteAfter }), 400, 'invalid_request');
    }
  });

  it('past deleteAt a file is gone from the API and the CDN, with one file.deleted "expired"', async () => {
    const record = await upload({ deleteAfter: 3600 });
    const kept = await upload({});
    assert.equal((await fetch(`${t.cdnUrl}/${record.id}`)).status, 200);
    // Its time comes in a second.
    await moveDeleteAt(
      { dataDir: t.dataDir, databaseUrl: t.service.context.config.databaseUrl },
      record.id,
      Date.now() + 1000,
    );
    const took = await within(15_000, async () => {
      const response = await fetch(`${t.cdnUrl}/${record.id}`);
      await response.arrayBuffer();
      return response.status === 404;
    });
    assert.ok(took < 15_000);
    await expectError(await t.api(`/v1/files/${record.id}`), 404, 'not_found');
    const listed = await json<FileListResponse>(await t.api('/v1/files?limit=100'));
    assert.ok(!listed.files.some((file) => file.id === record.id));
    assert.ok(listed.files.some((file) => file.id === kept.id));
    const deleted = (await events()).filter(
      (event) => event.type === 'file.deleted' && (event.data as FileRecord).id === record.id,
    );
    assert.equal(deleted.length, 1);
    assert.equal((deleted[0]?.data as { reason?: string } | undefined)?.reason, 'expired');
    // Its bytes go with the sweep.
    await within(10_000, async () => (await t.stored()).every((path) => !path.includes(record.id)));
  });

  it('DELETE sends file.deleted with "reason": "deleted"', async () => {
    const record = await upload({});
    const answer = await t.api(`/v1/files/${record.id}`, { method: 'DELETE' });
    assert.equal(answer.status, 204);
    const deleted = (await events()).filter(
      (event) => event.type === 'file.deleted' && (event.data as FileRecord).id === record.id,
    );
    assert.equal(deleted.length, 1);
    assert.equal((deleted[0]?.data as { reason?: string } | undefined)?.reason, 'deleted');
  });
});
