import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { staticServer } from '../helpers/static-server.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';

/**
 * The script-tag bundle (`npm run build` first) on a plain page in another language: it
 * fetches that language's words from `locales/` beside itself, and no other language.
 */
describe('the script-tag bundle in a page of another language', () => {
  let lang = 'de';
  let site: { origin: string; server: Server };
  let browser: Browser;

  before(async () => {
    site = await staticServer(
      () => `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>Seite</title>
<script type="module" src="/filehost.js"></script></head>
<body><file-uploader></file-uploader><file-list></file-list></body></html>`,
    );
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    site?.server.close();
  });

  /** Opens the page in `pageLang`; returns the scripts it fetched and the uploader's browse text. */
  async function visit(pageLang: string, expected: string) {
    lang = pageLang;
    const page = await browser.newPage();
    const fetched: string[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.endsWith('.js')) fetched.push(pathname);
    });
    await page.goto(site.origin);
    const browse = page.locator('file-uploader .browse');
    await browse.filter({ hasText: expected }).waitFor();
    // The list's failure (no address), worded in the same language.
    const listText = (await page.locator('file-list .detail').textContent()) ?? '';
    await page.close();
    return { fetched: fetched.filter((path) => path.startsWith('/locales/')), listText };
  }

  it('fetches only the page’s language, and both elements speak it', async () => {
    const german = await visit('de', 'Dateien auswählen');
    assert.deepEqual(german.fetched, ['/locales/de.js']);
    assert.match(german.listText, /Es ist keine Adresse gesetzt/);
  });

  it('fetches pt-BR for any Portuguese page, and nothing for English or a language not shipped', async () => {
    assert.deepEqual((await visit('pt-PT', 'escolha arquivos')).fetched, ['/locales/pt-BR.js']);
    assert.deepEqual((await visit('en', 'choose files')).fetched, []);
    assert.deepEqual((await visit('sv', 'choose files')).fetched, []);
  });

  /**
   * What the uploader showed, sampled every 5 ms while the page loaded, with `/locales/de.js`
   * answered late (`delayMs`) or not at all: its browse text and whether it could be seen.
   */
  async function framesWhileLoading(options: { delayMs?: number; fail?: boolean }) {
    lang = 'de';
    const page = await browser.newPage();
    await page.route('**/locales/de.js', async (route) => {
      if (options.fail) return route.abort('failed');
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 0));
      return route.continue();
    });
    // As a string: a function would be sent with tsx's name helpers, which the page lacks.
    await page.addInitScript(`
      const frames = (window.frames_ = []);
      // Every 5 ms (animation frames do not run in a page Chromium is not painting).
      setInterval(() => {
        const uploader = document.querySelector('file-uploader');
        const text = uploader?.shadowRoot?.querySelector('.browse')?.textContent?.trim() ?? '';
        if (uploader && text) {
          frames.push({ text, visible: getComputedStyle(uploader).visibility === 'visible' });
        }
      }, 5);
    `);
    await page.goto(site.origin);
    await page
      .locator('file-uploader .browse')
      .filter({ hasText: options.fail ? 'choose files' : 'Dateien auswählen' })
      .waitFor();
    await page.waitForTimeout(100);
    const frames = await page.evaluate(
      () => (window as unknown as { frames_: { text: string; visible: boolean }[] }).frames_,
    );
    await page.close();
    return frames;
  }

  it('never shows English while the page’s language is on its way: the element waits, its place kept', async () => {
    const frames = await framesWhileLoading({ delayMs: 600 });
    const english = frames.filter((frame) => frame.text === 'choose files');
    assert.ok(english.length > 0, 'the element was drawn before its language arrived');
    assert.deepEqual(
      english.filter((frame) => frame.visible),
      [],
      'no frame showed the English words',
    );
    assert.ok(frames.some((frame) => frame.text === 'Dateien auswählen' && frame.visible));
  });

  it('speaks English at once when its language cannot be fetched', async () => {
    const frames = await framesWhileLoading({ fail: true });
    assert.ok(frames.some((frame) => frame.text === 'choose files' && frame.visible));
  });
});
