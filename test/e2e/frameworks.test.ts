import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import type { FileRecord } from '../../src/api/types.js';
import { untilCropBoxPlaced } from '../helpers/crop-box.js';
import { noiseJpeg } from '../helpers/images.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';

/**
 * The React and Vue demos (demo/react, demo/vue), served by Vite as `npm start` serves them,
 * in real Chromium against the real service: the element uploads, the list shows the file,
 * and the framework's own event handler receives the file record.
 */
describe('the elements inside React and Vue', () => {
  let service: TestService;
  let vite: ViteDevServer;
  let origin: string;
  let browser: Browser;

  before(async () => {
    service = await startTestService();
    process.env.VITE_FILEHOST_API_URL = service.apiUrl;
    process.env.VITE_FILEHOST_PUBLISHABLE_KEY = service.publishableKey;
    vite = await createServer({ logLevel: 'silent', server: { port: 0, strictPort: false } });
    await vite.listen();
    origin = new URL(vite.resolvedUrls?.local[0] ?? '').origin;
    const { project } = service.service.defaultProject;
    await service.service.context.db.updateProject(project.id, { allowedOrigins: [origin] });
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await vite?.close();
    await service?.close();
  });

  for (const [framework, source] of [
    ['react', 'react-demo'],
    ['vue', 'vue-demo'],
  ] as const) {
    it(`${framework}: upload, list, and the framework's handler gets the record`, async () => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      // Generous: a loaded CI machine (every stage side by side) outlasted the default 30 s.
      await page.goto(`${origin}/demo/${framework}/`, { timeout: 120_000 });
      const name = `${framework} notes.txt`;
      await page.setInputFiles('#uploader input[type=file]', {
        name,
        mimeType: 'text/plain',
        buffer: Buffer.from(`written in ${framework}`),
      });
      const received = page.locator('[data-testid=last] a', { hasText: name });
      await received.waitFor({ timeout: 30_000 });
      const url = (await received.getAttribute('href')) as string;
      await page.locator('file-list a', { hasText: name }).waitFor();
      // The property set from the framework (metadata) reached the service.
      const id = new URL(url).pathname.split('/')[1] as string;
      const record = (await (await service.api(`/v1/files/${id}`)).json()) as FileRecord;
      assert.equal(record.name, name);
      assert.deepEqual(record.metadata, { source });
      assert.equal(await (await fetch(url)).text(), `written in ${framework}`);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  it('vue: the avatar field crops to a square (crop-aspect="1:1") and Vue hears image-edit', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/demo/vue/`, { timeout: 120_000 });
    await page.setInputFiles('#avatar input[type=file]', {
      name: 'portrait.jpg',
      mimeType: 'image/jpeg',
      buffer: await noiseJpeg(600, 300),
    });
    // One image alone: the editor opens by itself, its crop box a square of the image's height.
    const dialog = page.locator('#avatar dialog[open]');
    await dialog.waitFor({ timeout: 20_000 });
    await untilCropBoxPlaced(page, 'avatar');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const edited = page.locator('[data-testid=edited]', { hasText: 'a crop of' });
    await edited.waitFor({ timeout: 20_000 });
    assert.match((await edited.textContent()) ?? '', /a crop of 300 × 300 pixels/);
    const received = page.locator('[data-testid=last] a', { hasText: 'portrait.jpg' });
    await received.waitFor({ timeout: 30_000 });
    const id = new URL((await received.getAttribute('href')) as string).pathname.split('/')[1];
    const record = (await (await service.api(`/v1/files/${id}`)).json()) as FileRecord;
    assert.equal(record.metadata.source, 'vue-demo');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
