// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type {
  CreatedWebhook,
  EventListResponse,
  WebhookListResponse,
} from '../../../../src/api/events.js';
import type { FileRecord, SignResponse, UploadResponse } from '../../../../src/api/types.js';
import { RETRY_DELAYS_MS } from '../../../../src/server/events/retry-schedule.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  patternBytes,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../../helpers/webhook-receiver.js';

const post = (t: TestService, path: string, body: unknown, key = t.secretKey) =>
  t.api(path, {
    method: 'POST',
    key,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

async function register(t: TestService, url: string, events?: string[]): Promise<CreatedWebhook> {
  return json<CreatedWebhook>(await post(t, '/v1/webhooks', { url, events }), 201);
}

async function uploadFile(t: TestService, name = 'a.txt'): Promise<UploadResponse> {
  return json<UploadResponse>(
    await t.api('/v1/upload', { method: 'POST', body: 'hello', headers: { 'X-Filename': name } }),
    201,
  );
}

describe('POST, GET and DELETE /v1/webhooks', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  after(() => t.close());

  it('registers an endpoint and shows its secret once; lists and deletes it', async () => {
    const { project, secretKey } = await t.otherProject();
    const created = await json<CreatedWebhook>(
      await post(t, '/v1/webhooks', { url: 'http://127.0.0.1:9/hooks' }, secretKey),
      201,
    );
    assert.match(created.id, /^wh_/);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(created.secret.slice(6), 'base64').length, 32);
    assert.deepEqual(created.events, [
      'file.ready',
      'file.deleted',
      'upload.expired',
      'file.infected',
      'file.import_failed',
    ]);
    assert.equal(created.url, 'http://127.0.0.1:9/hooks');
    const listed = await json<WebhookListResponse>(await t.api('/v1/webhooks', { key: secretKey }));
    const { secret: _secret, ...withoutSecret } = created;
    assert.deepEqual(listed.webhooks, [withoutSecret]);
    assert.ok(project.id);
    const gone = await t.api(`/v1/webhooks/${created.id}`, { method: 'DELETE', key: secretKey });
    assert.equal(gone.status, 204);
    await expectError(
      await t.api(`/v1/webhooks/${created.id}`, { method: 'DELETE', key: secretKey }),
      404,
      'not_found',
    );
    assert.deepEqual(
      (await json<WebhookListResponse>(await t.api('/v1/webhooks', { key: secretKey }))).webhooks,
      [],
    );
  });

  it('keeps the events asked for, each once, in the documented order', async () => {
    const created = await register(t, 'http://127.0.0.1:9/a', [
      'upload.expired',
      'file.ready',
      'upload.expired',
    ]);
    assert.deepEqual(created.events, ['file.ready', 'upload.expired']);
  });

  it('refuses bad URLs, unknown events, the publishable key, and an 11th endpoint', async () => {
    for (const url of [undefined, '', 'ftp://x.test/a', 'not a url', 'http://u:p@x.test/', 7]) {
      await expectError(await post(t, '/v1/webhooks', { url }), 400, 'invalid_request');
    }
    for (const events of [[], ['file.made'], 'file.ready', [7]]) {
      await expectError(
        await post(t, '/v1/webhooks', { url: 'http://127.0.0.1:9/', events }),
        400,
        'invalid_request',
      );
    }
    await expectError(
      await t.api('/v1/webhooks', { key: t.publishableKey, origin: ALLOWED_ORIGIN }),
      403,
      'secret_key_required',
    );
    const { secretKey } = await t.otherProject();
    for (let n = 0; n < 10; n++) {
      await json(await post(t, '/v1/webhooks', { url: `http://127.0.0.1:9/${n}` }, secretKey), 201);
    }
    await expectError(
      await post(t, '/v1/webhooks', { url: 'http://127.0.0.1:9/11' }, secretKey),
      400,
      'invalid_request',
    );
  });
});

describe('webhook deliveries', () => {
  let t: TestService;
  let receiver: WebhookReceiver;
  let hook: CreatedWebhook;
  let clock = Date.now();
  beforeEach(async () => {
    t = await startTestService({ FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true' });
    receiver = await startReceiver();
    hook = await register(t, receiver.url);
    clock = Date.now();
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  /** The service's clock from now on: retries come due when the test moves it. */
  const controlClock = () => {
    t.service.context.now = () => clock;
  };
  const deliverer = () => t.service.context.events as unknown as { runDue(): Promise<number> };

  it('tells the endpoint of a ready file, signed as Standard Webhooks libraries verify', async () => {
    const file = await uploadFile(t);
    const [request] = await receiver.waitFor(1);
    assert.ok(request);
    const payload = receiver.verify(request, hook.secret);
    assert.equal(payload.type, 'file.ready');
    const record = await json<FileRecord>(await t.api(`/v1/files/${file.id}`));
    assert.deepEqual(payload.data, record);
    assert.match(String(request.headers['webhook-id']), /^evt_/);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.ok(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000) < 30);
    // When the change happened: the moment the file became ready.
    assert.ok(Math.abs(new Date(payload.timestamp).getTime() - record.createdAt) < 1000);
    // A signature made with another secret does not verify.
    assert.throws(() =>
      receiver.verify(request, `whsec_${Buffer.alloc(32, 1).toString('base64')}`),
    );
  });

  it('tells of a multi-step upload completed, a file deleted, and an upload expired', async () => {
    const signed = await json<SignResponse>(await t.sign({ name: 'b.bin', size: 3 }), 201);
    const part = signed.parts[0];
    assert.ok(part);
    assert.equal((await t.putPart(part, patternBytes(3))).status, 200);
    await json(await t.complete(signed.id));
    assert.equal((await t.api(`/v1/files/${signed.id}`, { method: 'DELETE' })).status, 204);
    const abandoned = await json<SignResponse>(await t.sign({ name: 'c.bin', size: 3 }), 201);
    controlClock();
    clock += 8 * 24 * 3_600_000;
    const { sweep } = await import('../../../../src/server/uploads/sweeper.js');
    assert.equal((await sweep(t.service.context)).expired, 1);
    const requests = await receiver.waitFor(3);
    const payloads = requests.map((request) => receiver.verify(request, hook.secret));
    assert.deepEqual(
      payloads.map((payload) => [payload.type, payload.data.id, payload.data.status]),
      [
        ['file.ready', signed.id, 'ready'],
        ['file.deleted', signed.id, 'ready'],
        ['upload.expired', abandoned.id, 'pending'],
      ],
    );
  });

  it('sends only the events an endpoint asked for', async () => {
    const second = await startReceiver();
    try {
      const deletions = await register(t, second.url, ['file.deleted']);
      const file = await uploadFile(t);
      await t.api(`/v1/files/${file.id}`, { method: 'DELETE' });
      await receiver.waitFor(2);
      const [request] = await second.waitFor(1);
      assert.ok(request);
      assert.equal(second.verify(request, deletions.secret).type, 'file.deleted');
      await deliverer().runDue();
      assert.equal(second.received.length, 1);
    } finally {
      await second.close();
    }
  });

  it('retries on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then fails', async () => {
    controlClock();
    receiver.answer = () => 500;
    await uploadFile(t);
    await receiver.waitFor(1);
    // The first attempt's outcome is recorded (its retry counted from then) before time moves.
    await deliverer().runDue();
    for (const [index, delay] of RETRY_DELAYS_MS.entries()) {
      // Not a moment before it is due...
      clock += delay - 1;
      await deliverer().runDue();
      assert.equal(receiver.received.length, index + 1, `attempt ${index + 2} came early`);
      // ...and then at once.
      clock += 1;
      await deliverer().runDue();
      assert.equal(receiver.received.length, index + 2, `attempt ${index + 2} did not come`);
    }
    clock += 30 * 24 * 3_600_000 - 1;
    await deliverer().runDue();
    assert.equal(receiver.received.length, RETRY_DELAYS_MS.length + 1);
    const ids = new Set(receiver.received.map((request) => request.headers['webhook-id']));
    assert.equal(ids.size, 1, 'every retry carries the same webhook-id');
    const log = await json<EventListResponse>(await t.api('/v1/events'));
    assert.deepEqual(log.events[0]?.deliveries, [
      { webhookId: hook.id, status: 'failed', attempts: 8, lastStatus: 500 },
    ]);
  });

  it('counts a redirect, a refused connection and a timeout as failed attempts', async () => {
    controlClock();
    receiver.answer = () => 302;
    await uploadFile(t);
    await receiver.waitFor(1);
    await deliverer().runDue();
    // The redirect was not followed: one request, to the registered path.
    assert.deepEqual(
      receiver.received.map((request) => request.path),
      ['/hooks/filehost'],
    );
    const log = await json<EventListResponse>(await t.api('/v1/events'));
    assert.deepEqual(log.events[0]?.deliveries, [
      { webhookId: hook.id, status: 'pending', attempts: 1, lastStatus: 302 },
    ]);
    await receiver.close();
    clock += RETRY_DELAYS_MS[0] as number;
    await deliverer().runDue();
    const refused = await json<EventListResponse>(await t.api('/v1/events'));
    assert.deepEqual(refused.events[0]?.deliveries, [
      { webhookId: hook.id, status: 'pending', attempts: 2, lastStatus: null },
    ]);
    // An endpoint that takes the request and never answers: given up on after the timeout
    // (15 s by default; shortened here).
    receiver = await startReceiver();
    receiver.answer = () => 0;
    await t.api(`/v1/webhooks/${hook.id}`, { method: 'DELETE' });
    hook = await register(t, receiver.url);
    t.service.context.config.webhookTimeoutMs = 300;
    const file = await uploadFile(t, 'slow.txt');
    const started = Date.now();
    await deliverer().runDue();
    assert.equal(receiver.received.length, 1);
    assert.ok(Date.now() - started >= 250, 'the attempt waited for the timeout');
    const later = await json<EventListResponse>(await t.api('/v1/events'));
    const slow = later.events.find((event) => event.data.id === file.id);
    assert.deepEqual(slow?.deliveries, [
      { webhookId: hook.id, status: 'pending', attempts: 1, lastStatus: null },
    ]);
  });

  it('refuses a target that resolves to a private address at delivery time', async () => {
    t.service.context.config.webhookAllowPrivate = false;
    controlClock();
    await uploadFile(t);
    await deliverer().runDue();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(receiver.received.length, 0);
    const log = await json<EventListResponse>(await t.api('/v1/events'));
    assert.deepEqual(log.events[0]?.deliveries, [
      { webhookId: hook.id, status: 'pending', attempts: 1, lastStatus: null },
    ]);
    // Registration refuses such targets, by address and by a name that resolves to one.
    for (const url of [
      'http://127.0.0.1:9/',
      'http://localhost:9/',
      'http://[::1]:9/',
      'http://169.254.169.254/latest',
      'http://10.1.2.3/',
      // IPv4-compatible, 6to4 and NAT64 forms of private addresses.
      'http://[::127.0.0.1]:9/',
      'http://[2002:7f00:1::]:9/',
      'http://[64:ff9b::a01:203]/',
      'http://[64:ff9b:1::a01:203]/',
      'http://[::ffff:7f00:1]:9/',
    ]) {
      const refused = await post(t, '/v1/webhooks', { url });
      const body = await expectError(refused, 400, 'invalid_request');
      // The message says a name is refused, never what it resolved to.
      if (url.includes('localhost')) assert.doesNotMatch(body.message, /127\.0\.0\.1|::1/);
    }
  });

  it('pages the event log newest first and queues an event again on request', async () => {
    const files: UploadResponse[] = [];
    for (let n = 0; n < 3; n++) files.push(await uploadFile(t, `${n}.txt`));
    await receiver.waitFor(3);
    // The receiver has answered; the outcomes are recorded once the run that sent them ends.
    await deliverer().runDue();
    const first = await json<EventListResponse>(await t.api('/v1/events?limit=2'));
    assert.equal(first.events.length, 2);
    assert.ok(first.nextCursor);
    const rest = await json<EventListResponse>(
      await t.api(`/v1/events?limit=2&cursor=${first.nextCursor}`),
    );
    assert.equal(rest.nextCursor, null);
    const all = [...first.events, ...rest.events];
    assert.deepEqual(
      all.map((event) => event.data.id),
      files.map((file) => file.id).reverse(),
    );
    for (const event of all) {
      assert.deepEqual(event.deliveries, [
        { webhookId: hook.id, status: 'delivered', attempts: 1, lastStatus: 204 },
      ]);
    }
    const oldest = all.at(-1);
    assert.ok(oldest);
    assert.equal(
      (await t.api(`/v1/events/${oldest.id}/redeliver`, { method: 'POST' })).status,
      202,
    );
    const [, , , again] = await receiver.waitFor(4);
    assert.ok(again);
    assert.equal(again.headers['webhook-id'], oldest.id);
    await expectError(
      await t.api('/v1/events/evt_nope/redeliver', { method: 'POST' }),
      404,
      'not_found',
    );
    await expectError(await t.api('/v1/events?limit=0'), 400, 'invalid_request');
  });

  it('keeps events 30 days: the sweeper removes older ones with their deliveries', async () => {
    controlClock();
    const old = await uploadFile(t, 'old.txt');
    await receiver.waitFor(1);
    clock += 20 * 24 * 3_600_000;
    const recent = await uploadFile(t, 'recent.txt');
    await receiver.waitFor(2);
    const { sweep } = await import('../../../../src/server/uploads/sweeper.js');
    clock += 10 * 24 * 3_600_000 + 1;
    await sweep(t.service.context);
    const log = await json<EventListResponse>(await t.api('/v1/events'));
    assert.deepEqual(
      log.events.map((event) => event.data.id),
      [recent.id],
    );
    assert.notEqual(old.id, recent.id);
  });
});
