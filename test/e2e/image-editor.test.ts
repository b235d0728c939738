// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import sharp from 'sharp';
import { untilCropBoxPlaced } from '../helpers/crop-box.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { staticServer } from '../helpers/static-server.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';

/**
 * `<file-uploader image-editor crop-aspect="1:1">` as a page author meets it (#57): the
 * built script tag (`npm run build` first) in a plain page, driven from the keyboard in
 * Chromium, the uploaded image read back from the CDN with sharp. Which scripts load when:
 * the loader with the first image, the editor (with Cropper.js) only once Edit is pressed.
 */
describe('the image editor through the script tag', () => {
  let service: TestService;
  let site: { origin: string; server: Server };
  let browser: Browser;

  before(async () => {
    let endpoint = '';
    let key = '';
    site = await staticServer(
      () => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>avatar</title>
<script type="module" src="/filehost.js"></script></head>
<body><file-uploader id="avatar" endpoint="${endpoint}" api-key="${key}" multiple image-editor
  crop-aspect="1:1"></file-uploader></body></html>`,
    );
    service = await startTestService({ FILEHOST_ALLOWED_ORIGINS: site.origin });
    endpoint = service.apiUrl;
    key = service.publishableKey;
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    site?.server.close();
  });

  /** A JPEG as a camera's would be: the left half red, the right half blue. */
  async function halves(width: number, height: number): Promise<Buffer> {
    const half = (r: number, b: number) =>
      sharp({ create: { width: width / 2, height, channels: 3, background: { r, g: 0, b } } })
        .png()
        .toBuffer();
    return sharp({ create: { width, height, channels: 3, background: '#000' } })
      .composite([
        { input: await half(255, 0), left: 0, top: 0 },
        { input: await half(0, 255), left: width / 2, top: 0 },
      ])
      .jpeg({ quality: 95 })
      .toBuffer();
  }

  /** The script files of the bundle the page fetched, by chunk name, in order. */
  function watchScripts(page: Page): string[] {
    const fetched: string[] = [];
    page.on('request', (request) => {
      // The hash is 8 characters, `-` among them (`filehost-image-editor--vdovKIM.js`).
      const name = /\/filehost-([a-z-]+?)-[\w-]{8}\.js$/.exec(request.url())?.[1];
      if (name) fetched.push(name);
    });
    return fetched;
  }

  /** The name of the element focused, through the uploader's shadow root. */
  const focusedText = (page: Page) =>
    page.evaluate(() => {
      let active = document.activeElement;
      while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
      return active?.textContent?.trim() ?? null;
    });

  it('holds the images, fetches the editor on Edit, crops to a square and turns it from the keyboard, and uploads only the edited image; Escape cancels', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const scripts = watchScripts(page);
    await page.goto(site.origin);
    await page.waitForFunction(() => customElements.get('file-uploader'));
    const starts: string[] = [];
    await page.exposeFunction('uploadStarted', (name: string) => starts.push(name));
    await page.evaluate(() =>
      document
        .querySelector('#avatar')
        ?.addEventListener('upload-start', (event) =>
          (window as unknown as { uploadStarted(name: string): void }).uploadStarted(
            (event as CustomEvent<{ file: { name: string } }>).detail.file.name,
          ),
        ),
    );
    await page.setInputFiles('#avatar input.pick-files', [
      { name: 'portrait.jpg', mimeType: 'image/jpeg', buffer: await halves(600, 300) },
      { name: 'second.jpg', mimeType: 'image/jpeg', buffer: await halves(200, 100) },
    ]);
    const waiting = page.locator('#avatar li[data-status=waiting]');
    await waiting.nth(1).waitFor({ timeout: 20_000 });
    assert.deepEqual(await waiting.locator('.name').allTextContents(), [
      'portrait.jpg',
      'second.jpg',
    ]);
    // Two images: they wait, no editor opens, and its chunk is not fetched.
    await page.waitForTimeout(500);
    assert.ok(scripts.includes('held-images'), scripts.join(' '));
    assert.ok(!scripts.includes('image-editor'), scripts.join(' '));
    assert.equal(await page.locator('#avatar dialog').count(), 0);

    // Edit, from the keyboard: the editor's chunk comes now, once.
    await waiting.nth(0).getByRole('button', { name: 'Edit portrait.jpg' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('#avatar dialog[open]');
    await dialog.waitFor({ timeout: 20_000 });
    assert.equal(scripts.filter((name) => name === 'image-editor').length, 1);
    await untilCropBoxPlaced(page, 'avatar');
    // Focus starts on the crop area; the arrows move the square (the image's full height,
    // centered) to the left edge, Shift+arrows make it a little smaller.
    assert.equal(
      await page.evaluate(() => {
        let active = document.activeElement;
        while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
        return active?.getAttribute('aria-label');
      }),
      'Crop area',
    );
    for (let i = 0; i < 60; i++) await page.keyboard.press('ArrowLeft');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowLeft');
    // A quarter turn clockwise: Tab to its button, Enter.
    while ((await focusedText(page)) !== 'Rotate right') await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await dialog.locator('[role=status]').filter({ hasText: 'Rotated 90 degrees' }).waitFor();
    const uploaded = page.evaluate(
      () =>
        new Promise<{ url: string; name: string; size: number }>((resolve) =>
          document
            .querySelector('#avatar')
            ?.addEventListener(
              'upload-success',
              (event) =>
                resolve(
                  (event as CustomEvent<{ record: { url: string; name: string; size: number } }>)
                    .detail.record,
                ),
              { once: true },
            ),
        ),
    );
    const edited = page.evaluate(
      () =>
        new Promise<{ crop: { width: number; height: number }; rotate: number; size: number }>(
          (resolve) =>
            document.querySelector('#avatar')?.addEventListener(
              'image-edit',
              (event) => {
                const { crop, rotate, file } = (
                  event as CustomEvent<{
                    crop: { width: number; height: number };
                    rotate: number;
                    file: File;
                  }>
                ).detail;
                resolve({ crop, rotate, size: file.size });
              },
              { once: true },
            ),
        ),
    );
    while ((await focusedText(page)) !== 'Save') await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const edit = await edited;
    const record = await uploaded;
    assert.equal(edit.rotate, 90);
    assert.equal(edit.crop.width, edit.crop.height);
    assert.equal(record.name, 'portrait.jpg');
    assert.equal(record.size, edit.size);
    // What the CDN serves is the edited image: square, as crop-aspect says, no larger than
    // the turned image's width (300), turned clockwise (the red left half now on top), and
    // with no metadata (a canvas writes none).
    const served = Buffer.from(await (await fetch(record.url)).arrayBuffer());
    const meta = await sharp(served).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.equal(meta.width, meta.height);
    assert.equal(meta.width, edit.crop.width);
    assert.ok((meta.width ?? 0) <= 300 && (meta.width ?? 0) > 250, String(meta.width));
    assert.equal(meta.exif, undefined);
    const { data, info } = await sharp(served).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3),
    ];
    const [topRed, , topBlue] = at(info.width >> 1, 4);
    const [bottomRed, , bottomBlue] = at(info.width >> 1, info.height - 5);
    assert.ok((topRed ?? 0) > 200 && (topBlue ?? 255) < 60, `top ${at(info.width >> 1, 4)}`);
    assert.ok((bottomBlue ?? 0) > 200 && (bottomRed ?? 255) < 60, 'bottom is blue');

    // The other image: Edit, then Escape: nothing sent, focus back on its Edit button.
    await waiting.nth(0).getByRole('button', { name: 'Edit second.jpg' }).click();
    await dialog.waitFor({ timeout: 20_000 });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await focusedText(page), 'Edit');
    assert.equal(await waiting.count(), 1);
    await page.waitForTimeout(500);
    assert.deepEqual(starts, ['portrait.jpg']);
    // The editor's chunk was fetched once in all.
    assert.equal(scripts.filter((name) => name === 'image-editor').length, 1);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
