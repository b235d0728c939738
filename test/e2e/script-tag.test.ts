// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { patternBytes } from '../helpers/bytes.js';
import { rememberUpload } from '../helpers/remembered-upload.js';
import { SCALE } from '../helpers/scale-mode.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { staticServer } from '../helpers/static-server.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';

/**
 * The product as a page author meets it: the built `dist/filehost.js` (run `npm run build`
 * first; `npm run test:e2e` does), loaded with a script tag from a plain static server (no
 * Vite, no bundler), configured by HTML attributes only, against the real service.
 */
/** The service's smallest part size: a file above it goes up in parts, by our MultipartUpload. */
const PART_SIZE = 5 * 1024 * 1024;

describe('the script-tag bundle in a plain page', () => {
  let service: TestService;
  let allowed: { origin: string; server: Server };
  let other: { origin: string; server: Server };
  let browser: Browser;
  const html = (endpoint: () => string, key: () => string) => () =>
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>plain page</title>
<script type="module" src="/filehost.js"></script>
<!-- Loaded twice on purpose: the second registration must be skipped, not throw. -->
<script type="module" src="/filehost.js?again"></script></head>
<body>
  <file-uploader id="uploader" endpoint="${endpoint()}" api-key="${key()}" multiple></file-uploader>
  <file-list for="uploader" endpoint="${endpoint()}" api-key="${key()}"></file-list>
</body></html>`;

  before(async () => {
    let endpoint = '';
    let key = '';
    const page = html(
      () => endpoint,
      () => key,
    );
    allowed = await staticServer(page);
    other = await staticServer(page);
    service = await startTestService({
      FILEHOST_ALLOWED_ORIGINS: allowed.origin,
      FILEHOST_PART_SIZE: String(PART_SIZE),
    });
    endpoint = service.apiUrl;
    key = service.publishableKey;
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    allowed?.server.close();
    other?.server.close();
  });

  /** Where the page sent bytes: the service's own part route, or (at scale) the bucket. */
  const putTargets: string[] = [];

  async function open(origin: string): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('request', (request) => {
      if (request.method() === 'PUT') putTargets.push(new URL(request.url()).origin);
    });
    await page.goto(origin);
    await page.waitForFunction(
      () => customElements.get('file-uploader') && customElements.get('file-list'),
    );
    return { page, errors };
  }

  /** Picks one file in the page's uploader; resolves with its link in the list once shown. */
  async function uploadAndAwaitLink(
    page: Page,
    file: { name: string; mimeType: string; buffer: Buffer },
    timeout: number,
  ): Promise<Locator> {
    await page.setInputFiles('file-uploader input[type=file]', file);
    const link = page.locator('file-list a', { hasText: file.name });
    await link.waitFor({ timeout });
    return link;
  }

  it('uploads through the element, lists the file, and its link serves the same bytes', async () => {
    const { page, errors } = await open(allowed.origin);
    const bytes = Buffer.from(patternBytes(300_000, 9));
    const link = await uploadAndAwaitLink(
      page,
      { name: 'quarterly report.pdf', mimeType: 'application/pdf', buffer: bytes },
      20_000,
    );
    const href = await link.getAttribute('href');
    assert.ok(href?.startsWith(`${service.cdnUrl}/`), href ?? 'no link');
    assert.equal(await link.getAttribute('target'), '_blank');
    const served = await fetch(href as string);
    assert.equal(served.status, 200);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(bytes), 'bytes differ');
    // The row as a person reads it: its size and state with a space on each side of the dot
    // (the bundle's minified templates once lost the first: "300 kB· Uploaded").
    const meta = page.locator('file-uploader .file .meta');
    await meta.filter({ hasText: 'Uploaded' }).waitFor();
    assert.equal(
      ((await meta.textContent()) ?? '').replace(/\s+/g, ' ').trim(),
      '300 kB · Uploaded',
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('sends small files picked together in one batch upload request, each listed with its own bytes', async () => {
    const { page, errors } = await open(allowed.origin);
    const batches: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/v1/upload/batch')) batches.push(request.method());
    });
    const files = [1, 2, 3].map((seed) => ({
      name: `small-${seed}.txt`,
      mimeType: 'text/plain',
      buffer: Buffer.from(patternBytes(2000 + seed, seed + 20)),
    }));
    await page.setInputFiles('file-uploader input[type=file]', files);
    for (const file of files) {
      const link = page.locator('file-list a', { hasText: file.name });
      await link.waitFor({ timeout: 20_000 });
      const served = await fetch((await link.getAttribute('href')) as string);
      assert.ok(
        Buffer.from(await served.arrayBuffer()).equals(file.buffer),
        `${file.name} differs`,
      );
    }
    // At scale too: the service writes the bytes to the bucket itself (no part PUT).
    assert.deepEqual(batches, ['POST']);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('fetches the memory of uploads across reloads only once the browser holds one', async () => {
    const { page, errors } = await open(allowed.origin);
    const memory = /filehost-remembered-uploads-[\w-]+\.js$/;
    const fetched: string[] = [];
    page.on('request', (request) => {
      if (memory.test(request.url())) fetched.push(request.url());
    });
    // An upload done within a second is never remembered: no chunk, no database.
    await uploadAndAwaitLink(
      page,
      { name: 'quick.txt', mimeType: 'text/plain', buffer: Buffer.from('done at once') },
      20_000,
    );
    const databases = () => page.evaluate(async () => (await indexedDB.databases()).length);
    assert.deepEqual(fetched, []);
    assert.equal(await databases(), 0);
    // A browser that remembered an upload before (as the element writes one): the next
    // visit fetches the memory and lists the upload as interrupted.
    await page.evaluate(rememberUpload, [service.apiUrl, service.publishableKey] as const);
    // Counted from the reload: on a loaded machine the quick upload can outlast the second
    // after which an upload is remembered, and its write fetches the chunk late.
    const beforeReload = fetched.length;
    await page.reload();
    await page
      .locator('file-uploader li[data-status=interrupted]', { hasText: 'wedding-video.mp4' })
      .waitFor({ timeout: 20_000 });
    assert.equal(fetched.length - beforeReload, 1);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('a small file whose upload outlasts a second loads filehost.js and the engine only: it has nothing to resume', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // Every script the page fetches, by name (a chunk without its hash).
    const scripts: string[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.endsWith('.js')) scripts.push(path.slice(1).replace(/(-[\w-]{8})?\.js$/, ''));
    });
    // A slow link: the file's bytes take 1.5 s to leave, past the second after which an
    // upload on its way is remembered across reloads.
    await page.route('**/*', async (route) => {
      if (route.request().method() === 'PUT') await new Promise((done) => setTimeout(done, 1500));
      await route.continue();
    });
    await page.goto(allowed.origin);
    await page.waitForFunction(
      () => customElements.get('file-uploader') && customElements.get('file-list'),
    );
    const started = Date.now();
    await uploadAndAwaitLink(
      page,
      { name: 'slow-small.txt', mimeType: 'text/plain', buffer: Buffer.from('a slow small file') },
      // Generous: CI at load 35-40 (every stage side by side) outlasted 20 s.
      60_000,
    );
    assert.ok(Date.now() - started > 1500, 'the upload outlasted the second');
    // A moment more for anything the upload's second might have started.
    await page.waitForTimeout(500);
    // At scale the part is checked with MD5 (S3's digest), whose hasher is a chunk of its own.
    const expected = ['filehost', ...(SCALE ? ['filehost-md5'] : []), 'filehost-upload-engine'];
    assert.deepEqual([...new Set(scripts)].sort(), expected);
    assert.equal(await page.evaluate(async () => (await indexedDB.databases()).length), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('renders without the upload engine; a file that cannot reach it fails for the page (upload-error, upload-complete) and goes on retry', async () => {
    const page = await browser.newPage();
    // The engine's file cannot be fetched (offline, or a CDN hiccup) until the route goes.
    const engine = /filehost-upload-engine-[\w-]+\.js$/;
    let blocked = 0;
    await page.route(engine, (route) => {
      blocked++;
      return route.abort('internetdisconnected');
    });
    await page.goto(allowed.origin);
    await page.waitForFunction(() => customElements.get('file-uploader'));
    // What the page hears (a string: tsx's helpers stay out of the page).
    await page.evaluate(`
      window.heard = [];
      const uploader = document.querySelector('file-uploader');
      for (const type of ['upload-error', 'upload-complete', 'upload-success'])
        uploader.addEventListener(type, (event) => window.heard.push({ type, detail: event.detail }));
    `);
    // The uploader is drawn and its button usable with filehost.js alone.
    await page.locator('file-uploader .browse').waitFor();
    await page.setInputFiles('file-uploader input[type=file]', {
      name: 'waiting.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('waited for the engine'),
    });
    await page.locator('file-uploader', { hasText: 'The connection was lost' }).waitFor();
    assert.ok(blocked > 0, 'the engine was asked for');
    type Heard = {
      type: string;
      detail: {
        code?: string;
        step?: string;
        message?: string;
        file?: { name: string };
        successful?: { name: string }[];
        failed?: { file: { name: string }; failure: { code: string } }[];
      };
    };
    const heard = () => page.evaluate('window.heard') as Promise<Heard[]>;
    await page.waitForFunction('window.heard.length >= 2');
    const [error, complete, ...more] = await heard();
    assert.deepEqual(more, []);
    assert.deepEqual(
      [error?.type, error?.detail.code, error?.detail.step, error?.detail.file?.name],
      ['upload-error', 'network_error', 'sign', 'waiting.txt'],
    );
    assert.match(error?.detail.message ?? '', /^The connection was lost/);
    assert.equal(complete?.type, 'upload-complete');
    assert.deepEqual(complete?.detail.successful, []);
    assert.deepEqual(
      complete?.detail.failed?.map(({ file, failure }) => [file.name, failure.code]),
      [['waiting.txt', 'network_error']],
    );
    await page.unroute(engine);
    await page.locator('file-uploader button', { hasText: 'Retry' }).click();
    await page.locator('file-list a', { hasText: 'waiting.txt' }).waitFor({ timeout: 20_000 });
    await page.waitForFunction('window.heard.length >= 4');
    assert.deepEqual(
      (await heard()).slice(2).map(({ type, detail }) => [type, detail.successful?.length]),
      [
        ['upload-success', undefined],
        ['upload-complete', 1],
      ],
    );
    await page.close();
  });

  // The element's other paths (parts, a refused duplicate, removal, teardown), run here on
  // the built bundle rather than on the sources the browser tests load.
  it('uploads in parts, refuses a duplicate in words, removes a file and tears down', async () => {
    const { page, errors } = await open(allowed.origin);
    const big = Buffer.from(patternBytes(2 * PART_SIZE + 12_345, 4));
    const link = await uploadAndAwaitLink(
      page,
      { name: 'film.bin', mimeType: 'application/octet-stream', buffer: big },
      60_000,
    );
    const served = await fetch((await link.getAttribute('href')) as string);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(big), 'bytes differ');
    // At scale the parts went from the page straight to the bucket (its CORS rule allowed
    // the PUTs and exposed each part's ETag, which completing needs); never through the API.
    const apiOrigin = new URL(service.apiUrl).origin;
    assert.ok(putTargets.length >= 3, `${putTargets.length} part PUTs`);
    assert.ok(
      putTargets.every((target) => (SCALE ? target !== apiOrigin : target === apiOrigin)),
      putTargets.join(' '),
    );

    await page.evaluate(() => {
      const notes = new File(['notes'], 'notes.txt', { type: 'text/plain', lastModified: 1 });
      document.querySelector('file-uploader')?.addFiles([notes, notes]);
    });
    const refusal = page.locator('file-uploader .error', { hasText: 'duplicate_file' });
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /This file is already in the list\./);
    await page.locator('file-list a', { hasText: 'notes.txt' }).waitFor({ timeout: 20_000 });

    // Uploaded first, so listed before the refused copy; both rows offer "Remove notes.txt".
    await page.getByRole('button', { name: 'Remove notes.txt' }).first().click();
    await page
      .locator('file-uploader li[data-status=done]', { hasText: 'notes.txt' })
      .waitFor({ state: 'detached' });
    await page.evaluate(() => document.querySelector('file-uploader')?.remove());
    await page.waitForTimeout(100);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('shows origin_not_allowed in words on a page whose origin is not allowed', async () => {
    const { page, errors } = await open(other.origin);
    await page.setInputFiles('file-uploader input[type=file]', {
      name: 'a.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('hello'),
    });
    const message = page.locator('file-uploader .error');
    await message.waitFor({ timeout: 20_000 });
    const text = (await message.textContent()) ?? '';
    assert.match(
      text,
      new RegExp(`This page \\(${other.origin.replace(/[.:/]/g, '\\$&')}\\) may not use this key`),
    );
    assert.match(text, /origin_not_allowed/);
    const listError = page.locator('file-list [role=alert]');
    await listError.waitFor();
    assert.match((await listError.textContent()) ?? '', /origin_not_allowed/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
