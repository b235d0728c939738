import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { EventListResponse } from '../../src/api/events.js';
import type { FileRecord, UploadResponse, UploadTokenResponse } from '../../src/api/types.js';
import {
  type Instances,
  missingScaleServers,
  type Ports,
  startInstances,
} from '../helpers/instances.js';
import type { TestNginx } from '../helpers/nginx.js';
import { moveDeleteAt } from '../helpers/row-clock.js';
import { ALLOWED_ORIGIN, json } from '../helpers/service.js';

const skip = (await missingScaleServers()) ?? undefined;

/** A POST from a given local address (a client of its own as nginx sees it): status and body. */
function postFrom(
  localAddress: string,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', headers, localAddress }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/**
 * Upload tokens, anonymous caps and files that delete themselves on the scale deployment for
 * real: two instances as processes of their own on one PostgreSQL database and one bucket,
 * behind nginx (round robin), which is the one proxy hop they trust.
 */
describe('upload tokens and reservations across instances (PostgreSQL + S3)', { skip }, () => {
  let scale: Instances;
  let env: Record<string, string>;
  let nginx: TestNginx;
  let ports: Ports[];

  before(async () => {
    scale = await startInstances({
      FILEHOST_RATE_LIMIT: '100000',
      // Both instances look for due files every second: they race for each one.
      FILEHOST_SWEEP_INTERVAL: '1',
    });
    ({ env, nginx, ports } = scale);
  });

  after(() => scale?.stop());

  const secret = () => ({
    Authorization: `Bearer ${env.FILEHOST_SECRET_KEY}`,
    'Content-Type': 'application/json',
  });
  const mint = async (policy: Record<string, unknown>) =>
    json<UploadTokenResponse>(
      await fetch(`${nginx.apiUrl}/v1/upload-tokens`, {
        method: 'POST',
        headers: secret(),
        body: JSON.stringify(policy),
      }),
      201,
    );
  const signWith = (key: string, body: unknown) =>
    fetch(`${nginx.apiUrl}/v1/uploads/sign`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('50 overlapping signs with one token over both instances: exactly maxFiles succeed', async () => {
    const { token } = await mint({ maxFiles: 10 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) => signWith(token, { name: `f${index}`, size: 10 })),
    );
    const statuses = await Promise.all(
      answers.map(async (answer) => {
        const body = (await answer.json()) as { error?: { code: string } };
        return answer.status === 201 ? 201 : `${answer.status} ${body.error?.code}`;
      }),
    );
    assert.equal(statuses.filter((status) => status === 201).length, 10, statuses.join(' '));
    assert.ok(statuses.every((status) => status === 201 || status === '403 token_exhausted'));

    const bytes = await mint({ maxBytes: 1000 });
    const batches = await Promise.all(
      Array.from({ length: 20 }, () =>
        signWith(bytes.token, {
          files: [
            { name: 'a', size: 100 },
            { name: 'b', size: 100 },
          ],
        }),
      ),
    );
    for (const answer of batches) await answer.arrayBuffer();
    assert.equal(batches.filter((answer) => answer.status === 201).length, 5);
  });

  it('caps anonymous reservations per client address as nginx saw it, not as a client claims', async () => {
    const page = (forged: string) => ({
      Authorization: `Bearer ${env.FILEHOST_PUBLISHABLE_KEY}`,
      Origin: ALLOWED_ORIGIN,
      'Content-Type': 'application/json',
      'X-Forwarded-For': forged,
    });
    const batch = JSON.stringify({
      files: Array.from({ length: 100 }, (_, index) => ({ name: `p${index}`, size: 1 })),
    });
    const one = JSON.stringify({ name: 'one', size: 1 });
    const sign = `${nginx.apiUrl}/v1/uploads/sign`;
    // 200 pending uploads from 127.0.0.3, whatever address each request claims.
    for (const forged of ['198.51.100.1', '198.51.100.2']) {
      const answer = await postFrom('127.0.0.3', sign, page(forged), batch);
      assert.equal(answer.status, 201, answer.text);
    }
    const refused = await postFrom('127.0.0.3', sign, page('198.51.100.3'), one);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(
      (JSON.parse(refused.text) as { error: { limit: string } }).error.limit,
      'address_uploads',
    );
    // Another client (as nginx sees it) has its own room.
    const other = await postFrom('127.0.0.4', sign, page('198.51.100.3'), one);
    assert.equal(other.status, 201, other.text);
    // The backend is not held back.
    const backend = await postFrom('127.0.0.3', sign, secret(), one);
    assert.equal(backend.status, 201, backend.text);
  });

  it('deletes a file when its deleteAt comes: gone from every instance, deleted once, one event', async () => {
    const uploaded = await json<UploadResponse>(
      await fetch(`${nginx.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${(await mint({ deleteAfter: 3600 })).token}`,
          'Content-Type': 'text/plain',
        },
        body: 'short-lived',
      }),
      201,
    );
    assert.ok(uploaded.deleteAt !== null);
    const cdns = ports.map((port) => `http://127.0.0.1:${port.cdn}`);
    for (const cdn of cdns) {
      assert.equal(await (await fetch(`${cdn}/${uploaded.id}`)).text(), 'short-lived');
    }
    await moveDeleteAt(
      { dataDir: '', databaseUrl: env.FILEHOST_DATABASE_URL },
      uploaded.id,
      Date.now() + 1000,
    );
    const started = Date.now();
    for (;;) {
      const statuses = await Promise.all(
        cdns.map(async (cdn) => {
          const response = await fetch(`${cdn}/${uploaded.id}`);
          await response.arrayBuffer();
          return response.status;
        }),
      );
      if (statuses.every((status) => status === 404)) break;
      assert.ok(Date.now() - started < 15_000, `still served: ${statuses.join(' ')}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Both instances kept looking for a few more rounds; still one event.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const events = await json<EventListResponse>(
      await fetch(`${nginx.apiUrl}/v1/events?limit=100`, { headers: secret() }),
    );
    const deleted = events.events.filter(
      (event) => event.type === 'file.deleted' && (event.data as FileRecord).id === uploaded.id,
    );
    assert.equal(deleted.length, 1);
    assert.equal((deleted[0]?.data as { reason?: string } | undefined)?.reason, 'expired');
    const answer = await fetch(`${nginx.apiUrl}/v1/files/${uploaded.id}`, { headers: secret() });
    await answer.arrayBuffer();
    assert.equal(answer.status, 404);
  });
});
