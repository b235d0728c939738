import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { FileListResponse, UploadTokenResponse } from '../../src/api/types.js';
import { PostgresMetadataStore } from '../../src/server/db/postgres/postgres-store.js';
import { createKey, createProject } from '../../src/server/start/admin.js';
import { type Instances, missingScaleServers, startInstances } from '../helpers/instances.js';
import type { TestNginx } from '../helpers/nginx.js';
import { ALLOWED_ORIGIN, json } from '../helpers/service.js';

const skip = (await missingScaleServers()) ?? undefined;
const MB = 1_000_000;

interface Answer {
  status: number;
  body: { error?: { code: string; limit?: string; available?: number } };
}

/** A POST from a given local address (a client of its own as nginx sees it). */
function postFrom(
  localAddress: string,
  url: string,
  headers: Record<string, string>,
  body: string | Uint8Array,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', headers, localAddress }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }),
      );
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/**
 * The anonymous share and the address allowance on the scale deployment for real: two
 * instances as processes of their own on one PostgreSQL database and one bucket, behind
 * nginx (round robin), which is the one proxy hop they trust, so each local address below
 * is a client of its own.
 */
describe('the owner is never locked out, across instances (PostgreSQL + S3)', { skip }, () => {
  let scale: Instances;
  let env: Record<string, string>;
  let nginx: TestNginx;

  before(async () => {
    scale = await startInstances({
      FILEHOST_RATE_LIMIT: '100000',
      FILEHOST_STORAGE_QUOTA: String(3 * MB),
    });
    ({ env, nginx } = scale);
  });

  after(() => scale?.stop());

  const secret = () => ({ Authorization: `Bearer ${env.FILEHOST_SECRET_KEY}` });
  const page = (key = env.FILEHOST_PUBLISHABLE_KEY) => ({
    Authorization: `Bearer ${key}`,
    Origin: ALLOWED_ORIGIN,
  });
  const octets = { 'Content-Type': 'application/octet-stream' };
  const uploadFrom = (client: string, headers: Record<string, string>, size: number) =>
    postFrom(client, `${nginx.apiUrl}/v1/upload`, { ...headers, ...octets }, new Uint8Array(size));
  const signFrom = (client: string, headers: Record<string, string>, body: unknown) =>
    postFrom(
      client,
      `${nginx.apiUrl}/v1/uploads/sign`,
      { ...headers, 'Content-Type': 'application/json' },
      JSON.stringify(body),
    );
  const deleteEverything = async () => {
    const listed = await json<FileListResponse>(
      await fetch(`${nginx.apiUrl}/v1/files?limit=100`, { headers: secret() }),
    );
    for (const file of listed.files) {
      const answer = await fetch(`${nginx.apiUrl}/v1/files/${file.id}`, {
        method: 'DELETE',
        headers: secret(),
      });
      await answer.arrayBuffer();
      assert.equal(answer.status, 204);
    }
  };

  it('50 overlapping anonymous uploads from 50 clients over both instances: exactly the share', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) => uploadFrom(`127.0.0.${20 + index}`, page(), 50_000)),
    );
    const statuses = answers.map((answer) =>
      answer.status === 201 ? 201 : `${answer.status} ${answer.body.error?.limit}`,
    );
    // 1.5 MB of 3 MB: thirty of 50 KB.
    assert.equal(statuses.filter((status) => status === 201).length, 30, statuses.join(' '));
    assert.ok(statuses.every((status) => status === 201 || status === '403 anonymous_share'));
    await deleteEverything();
  });

  it('seven anonymous 400 KB uploads; then the secret key, a secret-key sign and a token still upload', async () => {
    const statuses: (number | string)[] = [];
    for (let index = 1; index <= 7; index++) {
      const answer = await uploadFrom(`127.0.0.${100 + index}`, page(), 400_000);
      statuses.push(answer.status === 201 ? 201 : `${answer.status} ${answer.body.error?.limit}`);
    }
    assert.deepEqual(statuses, [
      201,
      201,
      201,
      '403 anonymous_share',
      '403 anonymous_share',
      '403 anonymous_share',
      '403 anonymous_share',
    ]);
    assert.equal((await uploadFrom('127.0.0.2', secret(), 400_000)).status, 201);
    assert.equal(
      (await signFrom('127.0.0.2', secret(), { name: 'owner.bin', size: 400_000 })).status,
      201,
    );
    const { token } = await json<UploadTokenResponse>(
      await fetch(`${nginx.apiUrl}/v1/upload-tokens`, {
        method: 'POST',
        headers: { ...secret(), 'Content-Type': 'application/json' },
        body: '{}',
      }),
      201,
    );
    assert.equal(
      (await uploadFrom('127.0.0.2', { Authorization: `Bearer ${token}` }, 400_000)).status,
      201,
    );
    const eighth = await uploadFrom('127.0.0.108', page(), 400_000);
    assert.equal(eighth.status, 403);
    assert.equal(eighth.body.error?.limit, 'anonymous_share');
    assert.equal(eighth.body.error?.available, 300_000);
  });

  it("one client's 24-hour allowance holds over many requests to both instances, and when they overlap", async () => {
    // A project of its own on the shared database, with the free plan's own limits.
    const db = await PostgresMetadataStore.open(env.FILEHOST_DATABASE_URL as string);
    let publishable: string;
    try {
      const project = await createProject(db, {
        name: 'Allowance',
        plan: 'free',
        allowedOrigins: [ALLOWED_ORIGIN],
      });
      publishable = (await createKey(db, project.id, 'publishable')).key;
    } finally {
      await db.close();
    }
    const one = { name: 'f.bin', size: 100 * MB };
    const statuses: number[] = [];
    for (let index = 0; index < 11; index++) {
      statuses.push((await signFrom('127.0.0.5', page(publishable), one)).status);
    }
    assert.deepEqual(statuses, [...Array(10).fill(201), 403]);
    const overlapping = await Promise.all(
      Array.from({ length: 50 }, () => signFrom('127.0.0.6', page(publishable), one)),
    );
    assert.equal(overlapping.filter((answer) => answer.status === 201).length, 10);
    assert.ok(
      overlapping.every(
        (answer) => answer.status === 201 || answer.body.error?.limit === 'address_bytes',
      ),
    );
  });
});
