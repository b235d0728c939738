import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { EVENT_TYPES } from '../../src/api/events.js';
import { newApiKey } from '../../src/server/ground/secrets.js';
import { freePort } from '../helpers/ports.js';
import { startPostgres } from '../helpers/postgres.js';
import { ALLOWED_ORIGIN, spawnService } from '../helpers/service.js';

const run = promisify(execFile);

describe('npm run admin (project and key management)', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-cli-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  const admin = async (...args: string[]) =>
    (
      await run(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', ...args], {
        env: { ...process.env, FILEHOST_DATA_DIR: dataDir },
      })
    ).stdout;

  it('creates a project whose keys work on a running service, and revokes them', async () => {
    const created = await admin(
      'projects',
      'create',
      '--name',
      'Shop',
      '--origins',
      ALLOWED_ORIGIN,
    );
    const projectId = /Created (prj_\S+)/.exec(created)?.[1];
    const secret = /Secret key\s+(sk_live_\S+)/.exec(created)?.[1];
    const publishable = /Publishable key\s+(pk_live_\S+)/.exec(created)?.[1];
    assert.ok(projectId && secret && publishable, created);
    assert.match(await admin('projects', 'list'), new RegExp(`${projectId}\\s+Shop\\s+\\(free\\)`));

    const service = await spawnService({ FILEHOST_DATA_DIR: dataDir });
    try {
      const list = () =>
        fetch(`${service.apiUrl}/v1/files`, {
          headers: { Authorization: `Bearer ${publishable}`, Origin: ALLOWED_ORIGIN },
        });
      assert.equal((await list()).status, 200);
      await admin('projects', 'set', projectId, '--origins', 'https://elsewhere.test');
      assert.equal((await list()).status, 403, 'origins apply to the running service at once');

      const keys = await admin('keys', 'list', projectId);
      const keyId = /(key_\S+)\s+publishable/.exec(keys)?.[1];
      assert.ok(keyId, keys);
      assert.ok(!keys.includes(publishable), 'keys are never shown again');
      await admin('keys', 'revoke', keyId);
      assert.equal((await list()).status, 401);
    } finally {
      service.process.kill('SIGTERM');
      const exit = await service.exited;
      assert.equal(exit.code, 0, 'stops cleanly on SIGTERM');
      assert.match(service.output(), /filehost stopped/);
    }
  });

  it("sets a project's accepted types and limits, which a running service applies at once", async () => {
    const created = await admin('projects', 'create', '--name', 'Photos', '--types', 'image/*');
    const projectId = /Created (prj_\S+)/.exec(created)?.[1] as string;
    const secret = /Secret key\s+(sk_live_\S+)/.exec(created)?.[1] as string;
    assert.match(created, /types: image\/\*, quota: 10000000000 bytes, 1000 pending/);
    const service = await spawnService({ FILEHOST_DATA_DIR: dataDir });
    try {
      const sign = (type: string, size = 10) =>
        fetch(`${service.apiUrl}/v1/uploads/sign`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'a', size, type }),
        });
      assert.equal((await sign('application/pdf')).status, 415);
      assert.equal((await sign('image/png')).status, 201);
      const set = await admin(
        'projects',
        'set',
        projectId,
        '--types',
        '*',
        '--storage-quota',
        '100',
        '--max-pending',
        '0',
      );
      assert.match(set, /types: any {2}quota: 100 bytes, no cap on pending/);
      assert.equal((await sign('application/pdf', 91)).status, 403, '10 pending + 91 > 100');
      assert.equal((await sign('application/pdf', 90)).status, 201);
      assert.match(
        await admin('projects', 'set', projectId, '--storage-quota', 'plan'),
        /10000000000/,
      );
      assert.match(
        await admin('projects', 'set', projectId, '--anonymous-share', '0.25'),
        /anonymous share 0\.25/,
      );
      assert.match(
        await admin('projects', 'set', projectId, '--anonymous-share', 'default'),
        /anonymous share 0\.5/,
      );
      await assert.rejects(admin('projects', 'set', projectId, '--anonymous-share', '2'));
      await assert.rejects(admin('projects', 'set', projectId, '--max-pending', 'lots'));
      await assert.rejects(admin('projects', 'set', projectId, '--types', 'pdf'));
    } finally {
      service.process.kill('SIGTERM');
      await service.exited;
    }
  });

  it('creates, lists and deletes webhooks; the new secret is printed once', async () => {
    const created = await admin('projects', 'create', '--name', 'Hooks');
    const projectId = /Created (prj_\S+)/.exec(created)?.[1] as string;
    const made = await admin(
      'webhooks',
      'create',
      projectId,
      '--url',
      'https://hooks.example/in',
      '--events',
      'file.deleted,file.ready',
    );
    const [, id, secret] =
      /^(wh_\S+)\s+https:\/\/hooks\.example\/in\s+file\.ready,file\.deleted\n\s+(whsec_\S+)/.exec(
        made,
      ) ?? [];
    assert.ok(id && secret, made);
    const listed = (await admin('webhooks', 'list', projectId)).trim();
    assert.match(
      listed,
      new RegExp(`^${id}\\s+https://hooks.example/in\\s+file.ready,file.deleted$`),
    );
    assert.ok(!listed.includes(secret), 'the secret is not listed');
    await assert.rejects(
      admin('webhooks', 'create', projectId, '--url', 'ftp://x', '--events', 'file.ready'),
      /--url: url must be an http or https URL/,
    );
    await assert.rejects(
      admin('webhooks', 'create', projectId, '--url', 'https://x.test', '--events', 'file.made'),
      new RegExp(`--events takes ${EVENT_TYPES.join(', ')}; not file\\.made`),
    );
    assert.match(await admin('webhooks', 'delete', projectId, id), new RegExp(`Deleted ${id}`));
    assert.match(await admin('webhooks', 'list', projectId), /\(no webhooks\)/);
  });

  it('explains a wrong command and exits non-zero', async () => {
    await assert.rejects(
      admin('keys', 'create', 'prj_x', '--kind', 'nope'),
      (error: { stderr: string }) => {
        assert.match(error.stderr, /--kind secret or --kind publishable/);
        return true;
      },
    );
  });

  it('works on PostgreSQL too: migrate, projects and keys, shared by every instance', async (t) => {
    const pg = await startPostgres();
    if ('skip' in pg) {
      t.skip(pg.skip);
      return;
    }
    try {
      const databaseUrl = await pg.createDatabase();
      const onPostgres = async (...args: string[]) =>
        (
          await run(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', ...args], {
            env: { ...process.env, FILEHOST_DATABASE_URL: databaseUrl },
          })
        ).stdout;
      assert.match(await onPostgres('migrate'), /schema is up to date/);
      const generated = await onPostgres('keys', 'generate');
      const secretKey = /FILEHOST_SECRET_KEY=(sk_live_\S+)/.exec(generated)?.[1];
      const publishableKey = /FILEHOST_PUBLISHABLE_KEY=(pk_live_\S+)/.exec(generated)?.[1];
      assert.ok(secretKey && publishableKey, generated);
      const created = await onPostgres('projects', 'create', '--name', 'Shop');
      const projectId = /Created (prj_\S+)/.exec(created)?.[1];
      const secret = /Secret key\s+(sk_live_\S+)/.exec(created)?.[1];
      assert.ok(projectId && secret, created);
      // A service on that database (bytes on its local disk) knows the project at once.
      const service = await spawnService({
        FILEHOST_DATABASE_URL: databaseUrl,
        FILEHOST_DATA_DIR: dataDir,
        FILEHOST_SECRET_KEY: secretKey,
        FILEHOST_PUBLISHABLE_KEY: publishableKey,
      });
      try {
        const files = await fetch(`${service.apiUrl}/v1/files`, {
          headers: { Authorization: `Bearer ${secret}` },
        });
        assert.equal(files.status, 200);
        assert.match(await onPostgres('projects', 'list'), new RegExp(`${projectId}\\s+Shop`));
      } finally {
        service.process.kill('SIGKILL');
        await service.exited;
      }
    } finally {
      await pg.stop();
    }
  });

  it('refuses to start in one line when PostgreSQL or the bucket cannot be reached', async () => {
    const closed = await freePort();
    const keys = {
      FILEHOST_SECRET_KEY: newApiKey('secret'),
      FILEHOST_PUBLISHABLE_KEY: newApiKey('publishable'),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    for (const [env, setting] of [
      [
        { FILEHOST_DATABASE_URL: `postgres://filehost@127.0.0.1:${closed}/filehost` },
        /FILEHOST_DATABASE_URL/,
      ],
      [
        {
          FILEHOST_DATA_DIR: dataDir,
          FILEHOST_S3_BUCKET: 'files',
          FILEHOST_S3_ENDPOINT: `http://127.0.0.1:${closed}`,
          FILEHOST_S3_FORCE_PATH_STYLE: 'true',
          FILEHOST_S3_ACCESS_KEY_ID: 'a',
          FILEHOST_S3_SECRET_ACCESS_KEY: 'b',
        },
        /FILEHOST_S3_ENDPOINT/,
      ],
    ] as const) {
      const failed = await run(process.execPath, ['--import', 'tsx', 'src/server/start/main.ts'], {
        env: { ...process.env, ...keys, ...env, FILEHOST_API_PORT: '0', FILEHOST_CDN_PORT: '0' },
      }).then(
        () => assert.fail('it started'),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(failed.code, 1);
      const lines = failed.stderr.trim().split('\n');
      assert.equal(lines.length, 1, failed.stderr);
      assert.match(lines[0] ?? '', setting);
      assert.doesNotMatch(failed.stderr, /\n\s+at /);
    }
  });
});
