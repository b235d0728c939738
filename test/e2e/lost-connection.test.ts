import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { type ClosingProxy, startClosingProxy } from '../helpers/closing-proxy.js';
import { freePort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';

/*
 * Why the connection layer a page loads first (`FilehostConnection`, the elements' calls)
 * has no resend of its own, unlike `FilehostClient` in Node (test/client/lost-connection.test.ts): a
 * browser resends by itself a request whose kept-alive connection was closed under it.
 */
describe("a browser's request whose kept-alive connection is reset under it", () => {
  let t: TestService;
  let proxy: ClosingProxy;
  let browser: Browser | undefined;
  before(async () => {
    // The page's origin is the proxy's: the publishable key must allow it.
    const port = await freePort();
    t = await startTestService({ FILEHOST_ALLOWED_ORIGINS: `http://127.0.0.1:${port}` });
    proxy = await startClosingProxy(t.apiUrl, port);
    const path = chromiumPath();
    if (path) browser = await chromium.launch({ executablePath: path, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await proxy.close();
    await t.close();
  });

  it('is sent again by Chromium, a POST too, and gets the service its answer', async (context) => {
    if (!browser) {
      context.skip('no Chromium (npm run test:browser installs one)');
      return;
    }
    const page = await browser.newPage();
    await page.goto(`${proxy.url}/healthz`);
    const sign = () =>
      page.evaluate(async (key) => {
        const answer = await fetch('/v1/uploads/sign', {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'a.bin', size: 10 }),
        });
        return { status: answer.status, id: ((await answer.json()) as { id?: string }).id };
      }, t.publishableKey);
    assert.equal((await sign()).status, 201);
    proxy.end = 'reset';
    const raced = await sign();
    assert.equal(proxy.ended, 1, 'the kept-alive connection was reset under the POST');
    assert.equal(raced.status, 201);
    assert.ok(raced.id, 'a signed upload');
  });
});
