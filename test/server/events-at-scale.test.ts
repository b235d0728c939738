import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedWebhook } from '../../src/api/events.js';
import type { UploadResponse } from '../../src/api/types.js';
import {
  type Instances,
  missingScaleServers,
  type Ports,
  startInstances,
} from '../helpers/instances.js';
import type { TestNginx } from '../helpers/nginx.js';
import { type ChildService, json } from '../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const skip = (await missingScaleServers()) ?? undefined;

/**
 * Webhooks on the scale deployment for real: two instances as processes of their own on one
 * PostgreSQL database and one bucket, behind nginx. Each attempt is made by one instance;
 * what a killed instance was sending, the other sends.
 */
describe('webhooks from many instances (PostgreSQL + S3)', { skip }, () => {
  let scale: Instances;
  let env: Record<string, string>;
  let nginx: TestNginx;
  let receiver: WebhookReceiver;
  let hook: CreatedWebhook;
  let instances: ChildService[];
  let ports: Ports[];

  before(async () => {
    scale = await startInstances({
      // The receiver is on this machine; a deployment would keep the default (refused).
      FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
      // Short, so that a killed instance's claim runs out in seconds (2 x 2 s + 5 s).
      FILEHOST_WEBHOOK_TIMEOUT: '2',
    });
    ({ env, nginx, instances, ports } = scale);
    receiver = await startReceiver();
    hook = await json<CreatedWebhook>(
      await fetch(`${nginx.apiUrl}/v1/webhooks`, {
        method: 'POST',
        headers: { ...secret(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['file.ready'] }),
      }),
      201,
    );
  });

  after(async () => {
    await scale?.stop();
    await receiver?.close();
  });

  const secret = () => ({ Authorization: `Bearer ${env.FILEHOST_SECRET_KEY}` });
  const upload = async (apiUrl: string, name: string) =>
    json<UploadResponse>(
      await fetch(`${apiUrl}/v1/upload`, {
        method: 'POST',
        headers: { ...secret(), 'X-Filename': name },
        body: name,
      }),
      201,
    );

  it('delivers 1,000 uploads across both instances, 30% of first attempts failing: every event, none invented', async () => {
    const firstSeen = new Set<string>();
    const delivered = new Set<string>();
    let failedFirst = 0;
    receiver.answer = (_index, request) => {
      const id = String(request.headers['webhook-id']);
      if (!firstSeen.has(id)) {
        firstSeen.add(id);
        // A fixed 30%: every third-ish event by a hash of its id, not by chance.
        if ((id.charCodeAt(id.length - 1) + id.charCodeAt(id.length - 2)) % 10 < 3) {
          failedFirst++;
          return 503;
        }
      }
      delivered.add(id);
      return 204;
    };
    const files: UploadResponse[] = [];
    const names = Array.from({ length: 1000 }, (_, index) => `n${index}.txt`);
    for (let at = 0; at < names.length; at += 25) {
      files.push(
        ...(await Promise.all(names.slice(at, at + 25).map((name) => upload(nginx.apiUrl, name)))),
      );
    }
    const deadline = Date.now() + 120_000;
    while (delivered.size < 1000 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(delivered.size, 1000, `${delivered.size} of 1000 delivered`);
    assert.ok(failedFirst > 200 && failedFirst < 400, `${failedFirst} first attempts failed`);
    // Every event is a file of ours, verified, and each file was told once it was ready.
    const told = new Set<string>();
    for (const request of receiver.received) {
      const payload = receiver.verify(request, hook.secret);
      assert.equal(payload.type, 'file.ready');
      told.add(payload.data.id);
    }
    assert.deepEqual([...told].sort(), files.map((file) => file.id).sort());
    // At least once, and here exactly: a delivered event is not sent again.
    const ok = receiver.received.filter((request) =>
      delivered.has(String(request.headers['webhook-id'])),
    );
    assert.equal(ok.length, 1000 + failedFirst);
  });

  it('sends what a killed instance was sending, once its claim runs out', async () => {
    receiver.received.length = 0;
    // The first attempt hangs: the instance that makes it is killed while it waits.
    receiver.answer = (index) => (index === 0 ? 0 : 204);
    const killed = instances[0] as ChildService;
    const file = await upload(`http://127.0.0.1:${ports[0]?.api}`, 'orphan.txt');
    await receiver.waitFor(1, 10_000);
    killed.process.kill('SIGKILL');
    await killed.exited;
    const [, second] = await receiver.waitFor(2, 30_000);
    assert.ok(second);
    assert.equal(second.headers['webhook-id'], receiver.received[0]?.headers['webhook-id']);
    assert.equal(receiver.verify(second, hook.secret).data.id, file.id);
  });
});
