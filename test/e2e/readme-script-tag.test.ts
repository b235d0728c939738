import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join, normalize, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { codeBlocks } from '../helpers/markdown.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';

/**
 * The README's script-tag quick start, as written: its page, with the folder it says to copy,
 * `dist/script-tag/` (run `npm run build` first; `npm run test:e2e` does), served at
 * `/filehost/` by a plain static server, against a real service. A file picked in it is
 * uploaded, listed with its CDN link, and the page's own `upload-success` listener logs it.
 * Only the placeholders (the default API address and the publishable key) are replaced by
 * this service's.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist/script-tag');

describe('README: five minutes with a script tag', () => {
  let service: TestService;
  let server: Server;
  let origin: string;
  let browser: Browser;

  before(async () => {
    const block = codeBlocks(ROOT, 'README.md').find(
      (b) => b.section === 'Five minutes: a script tag' && b.language === 'html',
    );
    assert.ok(block, 'the README shows the page');
    assert.ok(block.text.includes('src="/filehost/filehost.js"'));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    assert.match(readme, /writes the files a page loads to `dist\/script-tag\/`/);
    // Any loopback port, as the embedded default project allows.
    service = await startTestService({ FILEHOST_ALLOWED_ORIGINS: 'http://localhost:*' });
    const page = block.text
      .replaceAll('http://localhost:8787', service.apiUrl)
      .replaceAll('pk_live_…', service.publishableKey);
    server = createServer((request, response) => {
      const path = decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/');
      if (path === '/') {
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
        return;
      }
      const file = normalize(join(DIST, path.replace(/^\/filehost\//, '/')));
      if (!path.startsWith('/filehost/') || !file.startsWith(`${DIST}/`)) {
        response.writeHead(404).end();
        return;
      }
      readFile(file).then(
        (bytes) => response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(bytes),
        () => response.writeHead(404).end(),
      );
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const address = server.address();
    assert.ok(address && typeof address !== 'string');
    origin = `http://localhost:${address.port}`;
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    server?.close();
    await service?.close();
  });

  it('uploads a picked file, lists it with its CDN link, and the page hears upload-success', async () => {
    const page = await browser.newPage();
    const logged: string[] = [];
    const errors: string[] = [];
    page.on('console', (message) => logged.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(origin);
    await page.setInputFiles('file-uploader input[type=file]', {
      name: 'first-upload.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'),
    });
    const link = page.locator('file-list a', { hasText: 'first-upload.pdf' });
    await link.waitFor({ timeout: 20_000 });
    const href = await link.getAttribute('href');
    assert.ok(href, 'the listed file has a link');
    assert.ok(href.startsWith(`${service.cdnUrl}/`), href);
    // The page's own listener logs the record's URL (the event may land just after the list).
    for (
      let waited = 0;
      !logged.some((text) => text.includes(href)) && waited < 5_000;
      waited += 50
    ) {
      await new Promise((done) => setTimeout(done, 50));
    }
    assert.ok(
      logged.some((text) => text.includes(href)),
      `the page's upload-success listener did not log ${href}: ${logged.join(' | ')}`,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
