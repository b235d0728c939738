// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { FileRecord, ImportResponse } from '../../../src/api/types.js';
import { StartupError } from '../../../src/server/ground/startup-error.js';
import { REFUSED_TARGET_MESSAGE } from '../../../src/server/ground/targets.js';
import { configFromEnv } from '../../../src/server/start/config-from-env.js';
import { startService } from '../../../src/server/start/service.js';
import { serveRemote } from '../../helpers/remote-server.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Link-local and cloud metadata targets: refused even when private targets are allowed. */
const NEVER = [
  'http://169.254.169.254/latest/meta-data/',
  'http://100.100.100.200/latest/meta-data/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://[fe80::1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:0:169.254.169.254]/',
];

/** Starts an import with the publishable key, as a page's visitor would. */
async function importAsVisitor(t: TestService, url: string): Promise<string> {
  const { file } = await json<ImportResponse>(
    await t.api('/v1/uploads/import', {
      method: 'POST',
      key: t.publishableKey,
      origin: ALLOWED_ORIGIN,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url }),
    }),
    202,
  );
  return file.id;
}

async function settle(t: TestService, id: string): Promise<FileRecord> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const record = await json<FileRecord>(await t.api(`/v1/files/${id}`));
    if (record.status !== 'pending') return record;
    assert.ok(Date.now() < deadline, `import ${id} still pending`);
    await delay(100);
  }
}

async function registerWebhook(t: TestService, url: string): Promise<Response> {
  return t.api('/v1/webhooks', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ url }),
  });
}

/**
 * decisions.md, "Private targets are opt-in": imports and webhooks refuse loopback, private,
 * link-local and metadata targets unless the operator allows private ones, and even then
 * never reach link-local or metadata addresses.
 */
describe('private targets are opt-in', () => {
  /** A service on the machine's loopback holding something not meant for the world. */
  let secret: { url: string; server: Server };
  let asked = 0;
  let byDefault: TestService;
  let allowing: TestService;

  before(async () => {
    secret = await serveRemote('127.0.0.1', (_request, response) => {
      asked++;
      response.setHeader('content-type', 'text/plain');
      response.end('the internal admin password is hunter2');
    });
    byDefault = await startTestService();
    allowing = await startTestService({
      FILEHOST_IMPORT_ALLOW_PRIVATE: 'true',
      FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
    });
  });
  after(async () => {
    await Promise.all([byDefault.close(), allowing.close()]);
    secret.server.close();
  });

  it('by default, the publishable key cannot import a loopback service: nothing is asked, stored or served', async () => {
    asked = 0;
    for (const url of [`${secret.url}/secret`, secret.url.replace('127.0.0.1', 'localhost')]) {
      const id = await importAsVisitor(byDefault, url);
      const record = await settle(byDefault, id);
      assert.equal(record.status, 'failed', JSON.stringify(record));
      assert.deepEqual(record.importError, {
        code: 'import_refused_target',
        message: REFUSED_TARGET_MESSAGE,
      });
      const served = await fetch(`${byDefault.cdnUrl}/${id}`);
      assert.equal(served.status, 404);
      assert.doesNotMatch(await served.text(), /hunter2/);
    }
    assert.equal(asked, 0, 'the loopback service was never asked');
    assert.deepEqual(await byDefault.stored(), []);
  });

  it('by default, webhooks to loopback and private addresses are refused with the one message', async () => {
    for (const url of [
      `${secret.url}/hooks`,
      'http://localhost:9/hooks',
      'http://10.0.0.1/hooks',
      'http://no-such-host.invalid/hooks',
      ...NEVER,
    ]) {
      const body = await expectError(await registerWebhook(byDefault, url), 400, 'invalid_request');
      assert.equal(body.message, `The webhook URL cannot be used: ${REFUSED_TARGET_MESSAGE}.`);
    }
  });

  it('when allowed, imports and webhooks reach private targets', async () => {
    asked = 0;
    const id = await importAsVisitor(allowing, `${secret.url}/secret`);
    const record = await settle(allowing, id);
    assert.equal(record.status, 'ready', JSON.stringify(record));
    assert.equal(asked, 1);
    const registered = await registerWebhook(allowing, `${secret.url}/hooks`);
    assert.equal(registered.status, 201, await registered.clone().text());
  });

  it('even when allowed, link-local and metadata targets are refused, for imports and webhooks', async () => {
    for (const url of NEVER) {
      const id = await importAsVisitor(allowing, url);
      const record = await settle(allowing, id);
      assert.equal(record.status, 'failed', `${url}: ${JSON.stringify(record)}`);
      assert.deepEqual(record.importError, {
        code: 'import_refused_target',
        message: REFUSED_TARGET_MESSAGE,
      });
      const body = await expectError(await registerWebhook(allowing, url), 400, 'invalid_request');
      assert.equal(body.message, `The webhook URL cannot be used: ${REFUSED_TARGET_MESSAGE}.`);
    }
  });
});

describe('FILEHOST_WEBHOOK_URL at a target deliveries would refuse', () => {
  /** Starts a service with `env`: refused before anything is opened, so no data dir is made. */
  const start = (env: Record<string, string>) =>
    startService({
      ...configFromEnv({ FILEHOST_DATA_DIR: '/nonexistent/filehost-never-made', ...env }),
      apiPort: 0,
      cdnPort: 0,
    });

  it('is a start-up error naming the setting, not failed deliveries found later', async () => {
    for (const url of ['http://127.0.0.1:9/hooks', 'http://localhost:9/hooks', 'http://[::1]:9/']) {
      await assert.rejects(start({ FILEHOST_WEBHOOK_URL: url }), (error: unknown) => {
        assert.ok(error instanceof StartupError, String(error));
        assert.match(error.message, /FILEHOST_WEBHOOK_ALLOW_PRIVATE=true/);
        return true;
      });
    }
    for (const url of ['http://169.254.169.254/', 'http://[fd00:ec2::254]/']) {
      await assert.rejects(
        start({ FILEHOST_WEBHOOK_URL: url, FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true' }),
        (error: unknown) => {
          assert.ok(error instanceof StartupError, String(error));
          assert.match(error.message, /link-local or metadata address, which webhooks never reach/);
          return true;
        },
      );
    }
  });
});
