// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import type { FileRecord } from '../../src/api/types.js';
import { servePage } from '../helpers/page-server.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';

/**
 * Uppy's `@uppy/tus` in Chromium against the running service: a page from an allowed origin
 * uploads with the publishable key through `/v1/tus` (CORS preflights, tus headers read by
 * the page), and the file appears in `<file-list>` on the same page.
 */
describe('Uppy @uppy/tus in Chromium uploads to /v1/tus', () => {
  let page: Awaited<ReturnType<typeof servePage>>;
  let service: TestService;
  let browser: Browser;

  before(async () => {
    page = await servePage(
      '<!doctype html><html lang="en"><body><script type="module" src="/bundle.js"></script></body></html>',
      'test/e2e/uppy-tus-page.ts',
    );
    service = await startTestService({ FILEHOST_ALLOWED_ORIGINS: page.origin });
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await page?.close();
  });

  it('uploads with Uppy, reads Filehost-File-Id, and <file-list> shows the file', async () => {
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    await tab.goto(page.origin);
    await tab.waitForFunction(() => typeof window.uploadWithUppyTus === 'function');
    const name = 'uppy tus notes.txt';
    const text = 'sent by Uppy over tus';
    const { fileId, uploadUrl } = await tab.evaluate(
      ([endpoint, key, n, t]) => window.uploadWithUppyTus(endpoint, key, n, t),
      [service.apiUrl, service.publishableKey, name, text] as const,
    );
    assert.ok(fileId, 'the page read Filehost-File-Id (exposed by CORS)');
    assert.match(uploadUrl ?? '', /\/v1\/tus\//);
    const record = await json<FileRecord>(await service.api(`/v1/files/${fileId}`));
    assert.equal(record.status, 'ready');
    assert.equal(record.name, name);
    assert.equal(await (await fetch(record.url as string)).text(), text);
    await tab.locator('file-list a', { hasText: name }).waitFor({ timeout: 30_000 });
    assert.deepEqual(errors, []);
    await tab.close();
  });
});
