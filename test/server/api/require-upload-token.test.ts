// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { FileRecord, SignResponse, UploadTokenResponse } from '../../../src/api/types.js';
import { ConfigError } from '../../../src/server/ground/config.js';
import { configFromEnv } from '../../../src/server/start/config-from-env.js';
import { SCALE } from '../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  partAccepted,
  patternBytes,
  spawnService,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

const run = promisify(execFile);

describe('a project that requires upload tokens (FILEHOST_REQUIRE_UPLOAD_TOKEN=true)', () => {
  let t: TestService;
  const page = () => ({ key: t.publishableKey, origin: ALLOWED_ORIGIN });

  before(async () => {
    t = await startTestService({ FILEHOST_REQUIRE_UPLOAD_TOKEN: 'true' });
  });
  after(() => t.close());

  it('refuses the publishable key alone on every upload call: 403 upload_token_required', async () => {
    await expectError(await t.sign({ name: 'a', size: 1 }, page()), 403, 'upload_token_required');
    await expectError(
      await t.signMany([{ name: 'a', size: 1 }], page()),
      403,
      'upload_token_required',
    );
    await expectError(
      await t.api('/v1/upload', {
        ...page(),
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: 'hello',
      }),
      403,
      'upload_token_required',
    );
    // Nor may it continue one the backend started.
    const signed = await json<SignResponse>(await t.sign({ name: 'b.txt', size: 3 }), 201);
    const withUpload = { ...page(), headers: { 'X-Upload-Token': signed.uploadToken } };
    await expectError(await t.state(signed.id, withUpload), 403, 'upload_token_required');
    await expectError(
      await t.complete(signed.id, undefined, withUpload),
      403,
      'upload_token_required',
    );
    await expectError(
      await t.completeMany([{ id: signed.id, uploadToken: signed.uploadToken }], page()),
      403,
      'upload_token_required',
    );
  });

  it('still lists and gets with the publishable key; tokens and the secret key upload', async () => {
    const minted = await json<UploadTokenResponse>(
      await t.api('/v1/upload-tokens', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"maxFiles":1}',
      }),
      201,
    );
    const signed = await json<SignResponse>(
      await t.sign({ name: 'c.txt', size: 5, type: 'text/plain' }, { key: minted.token }),
      201,
    );
    const part = signed.parts[0] as SignResponse['parts'][number];
    await partAccepted(await t.putPart(part, patternBytes(5, 2)), part);
    const record = await json<FileRecord>(
      await t.complete(signed.id, undefined, {
        key: minted.token,
        origin: ALLOWED_ORIGIN,
        headers: { 'X-Upload-Token': signed.uploadToken },
      }),
    );
    await json(await t.api('/v1/files', page()));
    assert.equal(
      (await json<FileRecord>(await t.api(`/v1/files/${record.id}`, page()))).status,
      'ready',
    );
    await json(await t.sign({ name: 'd', size: 1 }), 201);
  });
});

describe('FILEHOST_REQUIRE_UPLOAD_TOKEN', () => {
  it('is true or false; unset leaves what the project has', () => {
    assert.equal(configFromEnv({}).requireUploadToken, undefined);
    assert.equal(configFromEnv({ FILEHOST_REQUIRE_UPLOAD_TOKEN: 'true' }).requireUploadToken, true);
    assert.equal(
      configFromEnv({ FILEHOST_REQUIRE_UPLOAD_TOKEN: 'false' }).requireUploadToken,
      false,
    );
    assert.throws(
      () => configFromEnv({ FILEHOST_REQUIRE_UPLOAD_TOKEN: 'yes' }),
      (error: unknown) =>
        error instanceof ConfigError && /FILEHOST_REQUIRE_UPLOAD_TOKEN/.test(error.message),
    );
  });
});

describe('npm run admin -- projects set --require-upload-token', {
  skip: SCALE ? 'the admin command is tested on the embedded data dir' : undefined,
}, () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-require-token-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  const admin = async (...args: string[]) =>
    (
      await run(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', ...args], {
        env: { ...process.env, FILEHOST_DATA_DIR: dataDir },
      })
    ).stdout;

  it('turns the requirement on and off for a running service', async () => {
    const service = await spawnService({
      FILEHOST_DATA_DIR: dataDir,
      FILEHOST_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
    });
    try {
      const { projectId } = JSON.parse(
        await readFile(join(dataDir, 'default-project.json'), 'utf8'),
      ) as { projectId: string };
      const sign = async () => {
        const answer = await fetch(`${service.apiUrl}/v1/uploads/sign`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${service.publishableKey}`,
            Origin: ALLOWED_ORIGIN,
            'Content-Type': 'application/json',
          },
          body: '{"name":"a","size":1}',
        });
        await answer.arrayBuffer();
        return answer.status;
      };
      assert.equal(await sign(), 201);
      const on = await admin('projects', 'set', projectId, '--require-upload-token');
      assert.match(on, /upload token required/);
      assert.equal(await sign(), 403);
      const off = await admin('projects', 'set', projectId, '--no-require-upload-token');
      assert.doesNotMatch(off, /upload token required/);
      assert.equal(await sign(), 201);
      await assert.rejects(
        admin('projects', 'set', projectId, '--require-upload-token', '--no-require-upload-token'),
      );
    } finally {
      service.process.kill('SIGTERM');
      await service.exited;
    }
  });
});
