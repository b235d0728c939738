// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ApiError, FilehostClient } from '../../src/client/index.js';
import { verifyWebhook, WebhookVerificationError } from '../../src/client/node.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

describe('the typed client: webhooks, the event log, and verifyWebhook', () => {
  let t: TestService;
  let receiver: WebhookReceiver;
  let client: FilehostClient;
  before(async () => {
    t = await startTestService({ FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true' });
    receiver = await startReceiver();
    client = new FilehostClient({ endpoint: t.apiUrl, apiKey: t.secretKey });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('registers an endpoint, and a receiver of a dozen lines verifies what it gets', async () => {
    const hook = await client.createWebhook({ url: receiver.url, events: ['file.ready'] });
    assert.deepEqual(
      (await client.listWebhooks()).map((listed) => listed.id),
      [hook.id],
    );
    const file = await client.uploadFile(new Blob(['hi']), { name: 'hi.txt' });
    const [request] = await receiver.waitFor(1);
    assert.ok(request);
    const payload = verifyWebhook(hook.secret, request.headers, request.body);
    assert.equal(payload.type, 'file.ready');
    assert.equal(payload.data.id, file.id);
    // Bytes, and fetch's Headers, as a framework may hand them over.
    const headers = new Headers(request.headers as Record<string, string>);
    assert.deepEqual(verifyWebhook(hook.secret, headers, Buffer.from(request.body)), payload);

    const forged = request.body.replace('hi.txt', 'ho.txt');
    assert.throws(
      () => verifyWebhook(hook.secret, request.headers, forged),
      WebhookVerificationError,
    );
    assert.throws(
      () =>
        verifyWebhook(
          `whsec_${Buffer.alloc(32, 9).toString('base64')}`,
          request.headers,
          request.body,
        ),
      WebhookVerificationError,
    );
    // Signed correctly, but ten minutes ago: a replay.
    const old = new Date(Date.now() - 10 * 60_000);
    const replayed = {
      ...request.headers,
      'webhook-timestamp': String(Math.floor(old.getTime() / 1000)),
      'webhook-signature': new Webhook(hook.secret).sign(
        String(request.headers['webhook-id']),
        old,
        request.body,
      ),
    };
    assert.throws(
      () => verifyWebhook(hook.secret, replayed, request.body),
      WebhookVerificationError,
    );
    assert.throws(
      () =>
        verifyWebhook(hook.secret, { ...request.headers, 'webhook-id': ['a', 'b'] }, request.body),
      WebhookVerificationError,
    );

    const page = await client.listEvents({ limit: 1 });
    assert.equal(page.events[0]?.data.id, file.id);
    await client.redeliverEvent(page.events[0]?.id as string);
    await receiver.waitFor(2);
    await client.deleteWebhook(hook.id);
    assert.deepEqual(await client.listWebhooks(), []);
    await assert.rejects(client.deleteWebhook(hook.id), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'not_found');
      return true;
    });
  });
});
