// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { en } from '../../src/elements/shared/en.js';
import { fillServiceWords } from '../../src/elements/shared/en-service.js';
import { failureContext } from '../../src/elements/shared/failure-text.js';
import { fillEnglish } from '../../src/elements/upload-engine/en-engine.js';
import { fillRefusals } from '../../src/elements/upload-engine/en-refusals.js';
import ar from '../../src/locales/ar.js';
import de from '../../src/locales/de.js';
import { ONE_FILE } from '../bench/support.js';
import { patternBytes } from '../helpers/bytes.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { staticServer } from '../helpers/static-server.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';

/**
 * The script tag as page authors deploy it (#43 point 2), from the built `dist/` on a plain
 * static server: `filehost.js` copied without the chunks it loads on use, which must say so
 * on the file (never as a lost connection), in the console and in `upload-error`; and
 * `filehost.bundle.js`, everything in one file, which uploads with nothing beside it.
 */
const PART_SIZE = 5 * 1024 * 1024;
const scale = process.env.FILEHOST_TEST_DEPLOYMENT === 'scale';

const isLocale = (name: string) => name.startsWith('locales/');

describe('a page that deploys only some files of dist/', () => {
  let service: TestService;
  let browser: Browser;
  /** filehost.js and the languages, without the engine or any other chunk. */
  let alone: { origin: string; server: Server };
  /** Everything but the part sender, which only files of several parts load. */
  let noPartSender: { origin: string; server: Server };
  /** filehost.bundle.js and nothing else. */
  let oneFile: { origin: string; server: Server };
  let endpoint = '';
  let key = '';
  let lang = 'en';

  const page = (script: string, attributes: string) => () =>
    `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>deployed in part</title>
<script type="module" src="/${script}"></script></head>
<body>
  <file-uploader id="uploader" endpoint="${endpoint}" api-key="${key}" multiple ${attributes}></file-uploader>
  <file-list for="uploader" endpoint="${endpoint}" api-key="${key}"></file-list>
</body></html>`;

  before(async () => {
    alone = await staticServer(
      page('filehost.js', ''),
      (name) => name === 'filehost.js' || isLocale(name),
    );
    noPartSender = await staticServer(
      page('filehost.js', ''),
      (name) => !name.startsWith('filehost-multipart-sender-'),
    );
    oneFile = await staticServer(page(ONE_FILE, 'checksum="all"'), (name) => name === ONE_FILE);
    service = await startTestService({
      FILEHOST_ALLOWED_ORIGINS: [alone, noPartSender, oneFile].map((s) => s.origin).join(','),
      FILEHOST_PART_SIZE: String(PART_SIZE),
    });
    endpoint = service.apiUrl;
    key = service.publishableKey;
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    for (const site of [alone, noPartSender, oneFile]) site?.server.close();
  });

  /** A new tab on `origin`, recording its console errors, page errors and scripts fetched. */
  async function open(origin: string) {
    const tab = await browser.newPage();
    const consoleErrors: string[] = [];
    const pageErrors: string[] = [];
    const scripts: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    tab.on('pageerror', (error) => pageErrors.push(error.message));
    tab.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.endsWith('.js')) scripts.push(pathname);
    });
    await tab.goto(origin);
    await tab.waitForFunction(() => customElements.get('file-uploader'));
    // Every upload-error's detail, as the page hears it (a string: tsx's helpers stay out).
    await tab.evaluate(`
      window.uploadErrors = [];
      document.querySelector('file-uploader').addEventListener('upload-error', (event) =>
        window.uploadErrors.push(event.detail));
      window.uploadCompletes = [];
      document.querySelector('file-uploader').addEventListener('upload-complete', (event) =>
        window.uploadCompletes.push({
          successful: event.detail.successful.length,
          failed: event.detail.failed.map(({ file, failure }) => [file.name, failure.code]),
        }));
    `);
    return { tab, consoleErrors, pageErrors, scripts };
  }

  const uploadErrors = (tab: Page) =>
    tab.evaluate('window.uploadErrors') as Promise<
      { code: string; status: number; step: string; message: string; file: { name: string } }[]
    >;

  it('filehost.js without its engine: the file says a file is missing, the console names it, upload-error has script_missing', async () => {
    lang = 'en';
    const { tab, consoleErrors, pageErrors } = await open(alone.origin);
    await tab.setInputFiles('file-uploader input[type=file]', {
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('never sent'),
    });
    const uploader = tab.locator('file-uploader');
    await uploader.filter({ hasText: 'A file this uploader needs is missing.' }).waitFor();
    assert.doesNotMatch((await uploader.textContent()) ?? '', /connection/i);
    assert.match((await tab.locator('file-uploader .error').textContent()) ?? '', /script_missing/);
    await tab.waitForFunction('window.uploadErrors.length > 0');
    const [failure, ...more] = await uploadErrors(tab);
    assert.deepEqual(more, []);
    assert.equal(failure?.code, 'script_missing');
    assert.equal(failure?.status, 0);
    assert.equal(failure?.file.name, 'notes.txt');
    assert.match(failure?.message ?? '', /^A file this uploader needs is missing\./);
    // And the run ends for the page: nothing is uploading any more.
    await tab.waitForFunction('window.uploadCompletes.length > 0');
    assert.deepEqual(await tab.evaluate('window.uploadCompletes'), [
      { successful: 0, failed: [['notes.txt', 'script_missing']] },
    ]);
    // Once for the load when the page was idle, once for the file: each names the engine.
    const named = consoleErrors.filter((text) => text.startsWith('filehost: missing'));
    assert.ok(named.length >= 1, JSON.stringify(consoleErrors));
    for (const text of named)
      assert.ok(text.startsWith(`filehost: missing ${alone.origin}/filehost-upload-engine-`), text);
    assert.deepEqual(pageErrors, []);

    // Worded again in the page's language, from the language file deployed beside it.
    await tab.evaluate(`document.documentElement.lang = 'de'`);
    await uploader.filter({ hasText: 'Eine Datei, die dieser Uploader braucht, fehlt.' }).waitFor();

    // A retry asks again and fails the same way, never as a lost connection.
    await tab.locator('file-uploader button', { hasText: 'Erneut' }).click();
    await tab.waitForFunction('window.uploadErrors.length > 1');
    assert.deepEqual(
      (await uploadErrors(tab)).map((error) => error.code),
      ['script_missing', 'script_missing'],
    );
    await tab.close();
  });

  it('without the part sender: a small file uploads, a file of several parts fails with script_missing', async () => {
    lang = 'en';
    const { tab, consoleErrors, pageErrors } = await open(noPartSender.origin);
    await tab.setInputFiles('file-uploader input[type=file]', [
      { name: 'small.txt', mimeType: 'text/plain', buffer: Buffer.from('one part') },
      {
        name: 'large.bin',
        mimeType: 'application/octet-stream',
        buffer: Buffer.from(patternBytes(PART_SIZE + 1, 3)),
      },
    ]);
    await tab.locator('file-list a', { hasText: 'small.txt' }).waitFor({ timeout: 20_000 });
    await tab.waitForFunction('window.uploadErrors.length > 0', undefined, { timeout: 20_000 });
    const failures = await uploadErrors(tab);
    assert.deepEqual(
      failures.map((failure) => [failure.file.name, failure.code, failure.step]),
      [['large.bin', 'script_missing', 'upload']],
    );
    await tab
      .locator('file-uploader', { hasText: 'A file this uploader needs is missing.' })
      .waitFor();
    assert.ok(
      consoleErrors.some((text) =>
        text.startsWith(`filehost: missing ${noPartSender.origin}/filehost-multipart-sender-`),
      ),
      JSON.stringify(consoleErrors),
    );
    assert.deepEqual(pageErrors, []);
    await tab.close();
  });

  it(`${ONE_FILE} alone uploads in parts with checksums (${scale ? 'MD5' : 'SHA-256'}), lists, and fetches nothing beside it`, async () => {
    lang = 'en';
    const { tab, pageErrors, scripts } = await open(oneFile.origin);
    const digests: (string | undefined)[] = [];
    tab.on('request', (request) => {
      const headers = request.headers();
      if (request.method() === 'PUT')
        digests.push(scale ? headers['content-md5'] : headers['content-digest']);
    });
    // The uploader speaks English with no language file.
    await tab.locator('file-uploader .browse', { hasText: 'choose files' }).waitFor();
    const bytes = Buffer.from(patternBytes(PART_SIZE + 54_321, 7));
    await tab.setInputFiles('file-uploader input[type=file]', {
      name: 'one file.bin',
      mimeType: 'application/octet-stream',
      buffer: bytes,
    });
    const link = tab.locator('file-list a', { hasText: 'one file.bin' });
    await link.waitFor({ timeout: 30_000 });
    const served = await fetch((await link.getAttribute('href')) as string);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(bytes), 'bytes differ');
    assert.equal(digests.length, 2, 'two parts');
    for (const digest of digests) assert.ok(digest, 'every part PUT carries its digest');
    assert.deepEqual(scripts, [`/${ONE_FILE}`]);
    assert.deepEqual(await uploadErrors(tab), []);
    assert.deepEqual(pageErrors, []);
    await tab.close();
  });

  /**
   * Every English text of both elements (statuses, failures, the words each chunk brings),
   * as fragments of at least two words: what a page in another language must never show.
   */
  function englishFragments(): string[] {
    fillEnglish();
    fillServiceWords();
    fillRefusals();
    const mark = '\u0000';
    const context = failureContext(
      Object.fromEntries(
        ['origin', 'limit', 'seconds', 'accept', 'max', 'code', 'message'].map((key) => [
          key,
          mark,
        ]),
      ),
    );
    const texts: string[] = [];
    for (const part of [en.uploader, en.list, en.errors] as Record<string, unknown>[]) {
      for (const [key, value] of Object.entries(part)) {
        if (typeof value === 'string') texts.push(value);
        if (typeof value !== 'function') continue;
        const call = value as (...args: unknown[]) => string;
        texts.push(part === en.errors ? call(context) : call(mark, mark, mark));
        if (key === 'end') texts.push(call(mark, 'one'));
      }
    }
    return texts
      .flatMap((text) => text.split(mark))
      .map((fragment) => fragment.trim())
      .filter((fragment) => fragment.includes(' ') && fragment.length >= 8);
  }

  /** Every text the page's two elements show or read out: their text and labels. */
  const shownTexts = (tab: Page) =>
    tab.evaluate(`[...document.querySelectorAll('file-uploader, file-list')].map((element) => {
      const root = element.shadowRoot;
      const labels = [...root.querySelectorAll('[aria-label], [title]')].map(
        (node) => (node.getAttribute('aria-label') ?? '') + ' ' + (node.getAttribute('title') ?? ''));
      return [root.querySelector('.base, [part=base]')?.innerText ?? root.textContent, ...labels].join('\\n');
    }).join('\\n')`) as Promise<string>;

  for (const [language, translation] of [
    ['de', de],
    ['ar', ar],
  ] as const) {
    it(`${ONE_FILE} alone speaks ${language} in every state it shows, fetching no language`, async () => {
      lang = language;
      const { tab, scripts, pageErrors } = await open(oneFile.origin);
      const t = translation.uploader;
      await tab.locator('file-uploader .browse', { hasText: t.browse }).waitFor();
      const base = tab.locator('file-uploader .base');
      assert.equal(await base.getAttribute('dir'), translation.$dir);
      const states: string[] = [await shownTexts(tab)];
      const name = `${language}.txt`;
      const file = { name, mimeType: 'text/plain', buffer: Buffer.alloc(95, 97) };
      await tab.setInputFiles('file-uploader input[type=file]', file);
      await tab.locator('file-list a', { hasText: name }).waitFor({ timeout: 20_000 });
      await tab.locator('file-uploader .file .meta', { hasText: t.done }).waitFor();
      states.push(await shownTexts(tab));
      // Only images from now: a text file is refused before it is sent, in the page's words.
      await tab.evaluate(`document.querySelector('file-uploader').accept = 'image/*'`);
      await tab.setInputFiles('file-uploader input[type=file]', { ...file, name: `b-${name}` });
      const refused = translation.errors.type_not_allowed(failureContext({ accept: 'image/*' }));
      await tab.locator('file-uploader .error', { hasText: refused }).waitFor();
      states.push(await shownTexts(tab));
      const english = englishFragments();
      for (const [index, shown] of states.entries()) {
        const found = english.filter((fragment) => shown.includes(fragment));
        assert.deepEqual(found, [], `state ${index} shows English:\n${shown}`);
      }
      assert.ok(states[1]?.includes(t.done), states[1]);
      assert.ok(states[1]?.includes(translation.list.copyLink), states[1]);
      assert.deepEqual(scripts, [`/${ONE_FILE}`]);
      assert.deepEqual(await uploadErrors(tab).then((errors) => errors.map((e) => e.code)), [
        'type_not_allowed',
      ]);
      assert.deepEqual(pageErrors, []);
      await tab.close();
    });
  }
});
