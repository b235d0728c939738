import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ViteDevServer } from 'vite';
import { startDemoServer } from '../../demo/demo-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * `npm start` serves the demo with Vite from the project's root, where the service's data
 * dir lies by default: nothing in it (the secret key's file, the database) may ever be
 * served, by any of Vite's routes.
 */
describe('the demo server', () => {
  let t: TestService;
  let vite: ViteDevServer;
  let dataDir: string;
  before(async () => {
    // Inside the project's root, as the default ./.filehost is.
    dataDir = await mkdtemp(join(process.cwd(), '.filehost-demo-test-'));
    t = await startTestService({ FILEHOST_DATA_DIR: dataDir });
    vite = await startDemoServer({ dataDir, port: 0 });
  });
  after(async () => {
    await vite?.close();
    await t?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves nothing of the data dir: not the secret key, not the database, by any route', async () => {
    const { port } = (
      vite.httpServer as NonNullable<typeof vite.httpServer>
    ).address() as AddressInfo;
    const base = `http://localhost:${port}`;
    const name = dataDir.slice(process.cwd().length);
    const dotless = name.replace('/.', '/%2e');
    for (const path of [
      `${name}/default-project.json`,
      `${name}/default-project.json?import`,
      `${name}/default-project.json?raw`,
      `${name}/filehost.db`,
      `${name}/filehost.db?raw`,
      `${name}/filehost.db?url`,
      `${dotless}/default-project.json`,
      `/@fs${dataDir}/default-project.json`,
      `/@fs${dataDir}/filehost.db?raw`,
    ]) {
      const response = await fetch(`${base}${path}`);
      const body = await response.text();
      assert.ok(!body.includes(t.secretKey), `${path} gave the secret key`);
      assert.ok(!body.includes('SQLite format'), `${path} gave the database`);
      assert.ok(!body.includes('secretKey'), `${path} gave the key file`);
    }
    // The demo page itself is served.
    const page = await fetch(`${base}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<file-uploader/);
  });
});
