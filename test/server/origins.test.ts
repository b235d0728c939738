import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  LOOPBACK_ORIGINS,
  normalizeOrigin,
  originAllowed,
} from '../../src/server/ground/origins.js';
import { configFromEnv, DEMO_ORIGINS } from '../../src/server/start/config-from-env.js';
import { type RunningService, startService } from '../../src/server/start/service.js';

describe('allowed origins', () => {
  it('a port wildcard allows every port of its scheme and host, and nothing else (property)', () => {
    const port = fc.integer({ min: 1, max: 65535 });
    fc.assert(
      fc.property(port, (n) => {
        for (const host of ['localhost', '127.0.0.1', '[::1]']) {
          assert.equal(originAllowed(LOOPBACK_ORIGINS, `http://${host}:${n}`), true);
          assert.equal(originAllowed(LOOPBACK_ORIGINS, `https://${host}:${n}`), false);
        }
        for (const host of ['localhost.evil.test', 'evil.test', '127.0.0.2', 'localhost%2eevil']) {
          assert.equal(originAllowed(LOOPBACK_ORIGINS, `http://${host}:${n}`), false, host);
        }
      }),
      { numRuns: 200 },
    );
    // The default port, which browsers leave out.
    assert.equal(originAllowed(LOOPBACK_ORIGINS, 'http://localhost'), true);
    // Only what a browser would send: no path, no user, no trailing slash.
    for (const odd of [
      'http://localhost:80/',
      'http://a@localhost:3000',
      'http://LOCALHOST:3000',
    ]) {
      assert.equal(originAllowed(LOOPBACK_ORIGINS, odd), false, odd);
    }
    assert.equal(originAllowed(['https://app.test'], 'https://app.test'), true);
    assert.equal(originAllowed(['https://app.test'], 'https://app.test:8443'), false);
  });

  it('reads entries as browsers send origins, with or without a port wildcard', () => {
    assert.equal(normalizeOrigin('HTTP://LocalHost:*'), 'http://localhost:*');
    assert.equal(normalizeOrigin('https://app.test:443'), 'https://app.test');
    assert.throws(() => normalizeOrigin('http://localhost:3000:*'), /bare origin/);
    assert.throws(() => normalizeOrigin('http://localhost/*'), /bare origin|not an origin/);
    assert.throws(() => normalizeOrigin('nope'), /not an origin/);
  });
});

describe('the embedded default project in development', () => {
  let dataDir: string;
  let service: RunningService;
  const start = async (env: Record<string, string> = {}) =>
    startService({
      ...configFromEnv({ FILEHOST_DATA_DIR: dataDir, FILEHOST_LOG_LEVEL: 'silent', ...env }),
      apiPort: 0,
      cdnPort: 0,
    });
  const list = (origin: string) =>
    fetch(`${service.apiUrl}/v1/files`, {
      headers: {
        Authorization: `Bearer ${service.defaultProject.publishableKey}`,
        Origin: origin,
      },
    });

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-origins-'));
  });
  after(async () => {
    await service?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('was made with the demo origins before: gets every loopback port once origins are unset', async () => {
    service = await start({ FILEHOST_ALLOWED_ORIGINS: DEMO_ORIGINS.join(',') });
    assert.equal((await list('http://localhost:4173')).status, 403);
    await service.close();
    service = await start();
    assert.deepEqual(service.defaultProject.project.allowedOrigins, LOOPBACK_ORIGINS);
  });

  it('accepts any loopback origin on any port, and names how to allow another', async () => {
    for (const origin of ['http://localhost:4173', 'http://127.0.0.1:39999', 'http://[::1]:3000']) {
      assert.equal((await list(origin)).status, 200, origin);
    }
    const refused = await list('http://app.test:5173');
    assert.equal(refused.status, 403);
    const { error } = (await refused.json()) as { error: { code: string; message: string } };
    assert.equal(error.code, 'origin_not_allowed');
    assert.match(error.message, /http:\/\/app\.test:5173/);
    assert.match(error.message, /FILEHOST_ALLOWED_ORIGINS=http:\/\/app\.test:5173/);
    assert.match(
      error.message,
      new RegExp(`npm run admin -- projects set ${service.defaultProject.project.id} --origins`),
    );
  });
});
