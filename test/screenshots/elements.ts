/**
 * `npm run screenshots`: every state of <file-uploader> (empty, dragging, uploading, done,
 * each error) and of <file-list> (loading, empty, error, files, end) on one page, produced
 * for real against the reference service in headless Chromium, saved in light, dark and
 * narrow to `.screenshots/` for a person to look at. The same page is then made in each
 * other language of SCREENSHOT_LANGS (default `en de ar ja`: a long-worded one, a right-to-
 * left one, a CJK one), light and dark, wide and narrow: `elements-<lang>-<scheme>-<width>.png`.
 * Taken by a person, not in CI: for Japanese (and Chinese, Korean) drawn as a reader sees them,
 * install a CJK font first (`apt-get install fonts-noto-cjk`; without one, Chromium falls back
 * to whatever the machine has, e.g. Droid Sans Fallback, or to boxes).
 */

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import sharp from 'sharp';
import { hashKey, newId } from '../../src/server/ground/secrets.js';
import { createKey, createProject } from '../../src/server/start/admin.js';
import type { RunningService } from '../../src/server/start/service.js';
import { untilCropBoxPlaced } from '../helpers/crop-box.js';
import { servePage } from '../helpers/page-server.js';
import { rememberUpload } from '../helpers/remembered-upload.js';
import { serveRemote } from '../helpers/remote-server.js';
import { startTestService } from '../helpers/service.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';

const STATES = [
  ['empty', 'Empty'],
  ['dragging', 'Dragging files over it'],
  ['uploading', 'Uploading (a multi-part file, one part in)'],
  ['paused', 'Paused (part 1 sent, the rest waits)'],
  ['interrupted', 'Cut off by an earlier reload (its file to be chosen again)'],
  ['done', 'Done'],
  ['rejected', 'Refused before sending (type, size, empty)'],
  ['origin', 'origin_not_allowed'],
  ['invalid-key', 'invalid_key'],
  ['too-large', 'too_large (plan limit)'],
  ['quota', 'quota_exceeded (the storage of the project is full)'],
  ['type-refused', 'unsupported_type (refused by the project)'],
  ['token-expired', 'token_expired (no tokenProvider to renew it)'],
  ['token-exhausted', 'token_exhausted (its maxFiles reached)'],
  ['token-required', 'upload_token_required (the key alone)'],
  ['token-limits', "A token's limits (its provider answered the mint), one file up"],
  ['token-provider-failed', 'token_provider_failed (its route answered 404)'],
  ['rate-limited', 'rate_limited (retrying)'],
  ['network', 'Network lost (after the automatic retries)'],
  ['folders', 'With directory and capture (a desktop: no camera)'],
  ['link', 'sources="files link": the URL field (keyboard focus)'],
  ['link-importing', 'Link: importing with an upload token alone (the site sends slowly)'],
  ['link-done', 'Link: imported with an upload token alone'],
  ['link-failed', 'Link: import_http_error (a 404), import_refused_target'],
  ['link-invalid', 'Link: not an http(s) link'],
] as const;

const LIST_STATES = [
  ['list-loading', 'List: loading'],
  ['list-empty', 'List: empty project'],
  ['list-error', 'List: origin_not_allowed'],
  ['list-files', 'List: files (a pending one, hostile names), end of list'],
  ['list-more', 'List: more to load'],
] as const;

/** The whole page in one language, marked up as a page in it is: its lang and direction. */
async function main(lang: string): Promise<void> {
  const outDir = join(process.cwd(), '.screenshots');
  await mkdir(outDir, { recursive: true });
  const dir = ['ar', 'he'].includes(lang) ? 'rtl' : 'ltr';
  const page = `<!doctype html><html lang="${lang}" dir="${dir}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<style>body{font-family:system-ui,sans-serif;margin:0;padding:24px;background:Canvas;color:CanvasText}
main{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,420px),1fr));gap:28px 24px}
h2{font-size:13px;font-weight:600;margin:0 0 8px;color:GrayText;text-transform:uppercase;letter-spacing:.04em}</style>
</head><body><main>${STATES.map(([id, title]) => `<section><h2>${title}</h2><file-uploader id="${id}" multiple></file-uploader></section>`).join('')}
${LIST_STATES.map(([id, title]) => `<section><h2>${title}</h2><file-list id="${id}" page-size="4"></file-list></section>`).join('')}</main>
<script type="module" src="/bundle.js"></script></body></html>`;
  const server = await servePage(page);
  const origin = server.origin;

  const env = {
    FILEHOST_ALLOWED_ORIGINS: origin,
    FILEHOST_PART_SIZE: String(5 * 1024 * 1024),
    // The import shown fetches from a server on loopback: a private target.
    FILEHOST_IMPORT_ALLOW_PRIVATE: 'true',
  };
  const mainService = await startTestService(env);
  const limitedService = await startTestService({ ...env, FILEHOST_RATE_LIMIT: '2' });
  const main = mainService.service;
  const limited = limitedService.service;
  const keyFor = async (
    service: RunningService,
    origins: string[],
    limits: { storageQuota?: number; allowedTypes?: string[]; requireUploadToken?: boolean } = {},
  ) => {
    const project = await createProject(service.context.db, {
      name: 'shots',
      plan: 'free',
      allowedOrigins: origins,
      ...limits,
    });
    return (await createKey(service.context.db, project.id, 'publishable')).key;
  };

  let closeRemote = () => {};
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1320, height: 900 } });
    const tab = await context.newPage();
    tab.on('pageerror', (error) => console.error('page error:', error.message));
    await tab.goto(origin);
    await tab.waitForFunction(() => customElements.get('file-uploader'));

    const configure = (id: string, settings: Record<string, unknown>) =>
      tab.evaluate(
        ([selector, values]) => Object.assign(document.querySelector(selector) as object, values),
        [`#${id}`, settings] as const,
      );
    const pick = (
      id: string,
      files: { name: string; type: string; size: number; image?: boolean }[],
    ) =>
      tab.evaluate(
        async ([selector, list]) => {
          const element = document.querySelector(selector) as HTMLElement & {
            addFiles(f: File[]): void;
          };
          const made = await Promise.all(
            list.map(async (f) => {
              if (!f.image)
                return new File([new Uint8Array(f.size).fill(7)], f.name, { type: f.type });
              const canvas = document.createElement('canvas');
              canvas.width = 96;
              canvas.height = 96;
              const g = canvas.getContext('2d') as CanvasRenderingContext2D;
              const gradient = g.createLinearGradient(0, 0, 96, 96);
              gradient.addColorStop(0, '#f97316');
              gradient.addColorStop(1, '#db2777');
              g.fillStyle = gradient;
              g.fillRect(0, 0, 96, 96);
              const blob = await new Promise<Blob>((resolve) =>
                canvas.toBlob((b) => resolve(b as Blob), 'image/png'),
              );
              return new File([blob], f.name, { type: 'image/png' });
            }),
          );
          element.addFiles(made);
        },
        [`#${id}`, files] as const,
      );
    const waitFor = (id: string, statuses: string[]) =>
      tab.waitForFunction(
        ([selector, wanted]) => {
          const files = (
            document.querySelector(selector) as unknown as { files: { status: string }[] }
          ).files;
          return files.length > 0 && files.every((f) => wanted.includes(f.status));
        },
        [`#${id}`, statuses] as const,
        { timeout: 60_000 },
      );

    const good = await keyFor(main, [origin]);
    // An upload remembered from an earlier visit (as the element writes it), for its own key.
    const remembered = await keyFor(main, [origin]);
    await tab.evaluate(rememberUpload, [main.apiUrl, remembered] as const);
    for (const [id] of STATES)
      await configure(id, {
        endpoint: main.apiUrl,
        apiKey: id === 'interrupted' ? remembered : good,
      });
    await configure('folders', { directory: true, capture: 'environment' });

    // The Link source, importing from a real site on loopback (the embedded test service
    // allows private targets): /slow.bin sends half of its 1 MiB and then waits, /report.pdf
    // is whole at once, /to-ftp redirects where the service may not go, anything else 404.
    const remote = await serveRemote('127.0.0.1', (request, response) => {
      if (request.url === '/to-ftp') {
        response.writeHead(302, { Location: 'ftp://example.com/x' }).end();
        return;
      }
      const size = request.url === '/slow.bin' ? 1024 * 1024 : 180_000;
      if (request.url !== '/slow.bin' && request.url !== '/report.pdf') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'Content-Length': String(size) });
      response.write(Buffer.alloc(request.url === '/slow.bin' ? size / 2 : size, 7));
      if (request.url !== '/slow.bin') response.end();
    });
    closeRemote = () => remote.server.close();
    const importLink = (id: string, url: string) =>
      tab.evaluate(
        async ([selector, link]) => {
          const root = document.querySelector(selector)?.shadowRoot;
          for (let i = 0; i < 100 && !root?.querySelector('input[name=url]'); i++)
            await new Promise((resolve) => setTimeout(resolve, 50));
          const input = root?.querySelector('input[name=url]') as HTMLInputElement;
          input.value = link;
          (input.form as HTMLFormElement).requestSubmit();
        },
        [`#${id}`, url] as const,
      );
    for (const id of ['link', 'link-importing', 'link-done', 'link-failed', 'link-invalid'])
      await configure(id, { sources: 'files link' });
    // A page that holds only an upload token follows its imports too (#45).
    const linkProject = await createProject(main.context.db, {
      name: 'shots with tokens',
      plan: 'free',
      allowedOrigins: [origin],
      requireUploadToken: true,
    });
    const backendKey = (await createKey(main.context.db, linkProject.id, 'secret')).key;
    for (const id of ['link-importing', 'link-done']) {
      const minted = await fetch(`${main.apiUrl}/v1/upload-tokens`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${backendKey}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      const { token } = (await minted.json()) as { token: string };
      await configure(id, { apiKey: '', uploadToken: token });
    }
    await importLink('link-importing', `${remote.url}/slow.bin`);
    await importLink('link-done', `${remote.url}/report.pdf`);
    await importLink('link-failed', `${remote.url}/missing.pdf`);
    await importLink('link-failed', `${remote.url}/to-ftp`);
    await importLink('link-invalid', 'example.com/file.pdf');
    // (No inner functions in what runs in the page: tsx names them with a helper it lacks.)
    await tab.waitForFunction(
      () =>
        !!document.querySelector('#link-done')?.shadowRoot?.querySelector('[data-status=done]') &&
        document.querySelector('#link-failed')?.shadowRoot?.querySelectorAll('[data-status=failed]')
          .length === 2 &&
        !!document
          .querySelector('#link-importing')
          ?.shadowRoot?.querySelector('[role=progressbar]:not([aria-valuenow="0"])'),
      undefined,
      { timeout: 60_000 },
    );

    await tab.evaluate(() => {
      const zone = document.querySelector('#dragging')?.shadowRoot?.querySelector('.dropzone');
      const transfer = new DataTransfer();
      transfer.items.add(new File(['x'], 'x.txt'));
      zone?.dispatchEvent(new DragEvent('dragenter', { dataTransfer: transfer, bubbles: true }));
    });

    await pick('done', [
      { name: 'sunset.png', type: 'image/png', size: 0, image: true },
      { name: 'quarterly report 2026.pdf', type: 'application/pdf', size: 2_400_000 },
      { name: 'notes.txt', type: 'text/plain', size: 1200 },
    ]);
    await waitFor('done', ['done']);

    await configure('rejected', { accept: 'image/*', maxFileSize: 1_000_000 });
    await pick('rejected', [
      {
        name: 'letter.docx',
        type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        size: 20_000,
      },
      { name: 'huge-photo.jpg', type: 'image/jpeg', size: 3_000_000 },
      { name: 'empty.png', type: 'image/png', size: 0 },
    ]);

    await configure('origin', { apiKey: await keyFor(main, ['https://shop.example']) });
    await pick('origin', [{ name: 'avatar.png', type: 'image/png', size: 0, image: true }]);
    await configure('invalid-key', { apiKey: 'pk_live_this-key-does-not-exist' });
    await pick('invalid-key', [{ name: 'contract.pdf', type: 'application/pdf', size: 50_000 }]);
    await pick('too-large', [{ name: 'holiday-video.mp4', type: 'video/mp4', size: 100_000_001 }]);
    await waitFor('origin', ['failed']);
    await waitFor('invalid-key', ['failed']);
    await waitFor('too-large', ['failed']);
    await configure('quota', { apiKey: await keyFor(main, [origin], { storageQuota: 1000 }) });
    await pick('quota', [{ name: 'site-backup.tar', type: 'application/x-tar', size: 40_000 }]);
    await configure('type-refused', {
      apiKey: await keyFor(main, [origin], { allowedTypes: ['image/*', 'application/pdf'] }),
    });
    await pick('type-refused', [{ name: 'notes.txt', type: 'text/plain', size: 2_000 }]);
    await waitFor('quota', ['failed']);
    await waitFor('type-refused', ['failed']);

    // Upload tokens, minted by a backend with the project's secret key.
    const tokenProject = await createProject(main.context.db, {
      name: 'shots tokens',
      plan: 'free',
      allowedOrigins: [origin],
    });
    const secret = (await createKey(main.context.db, tokenProject.id, 'secret')).key;
    const minted = async (policy: Record<string, unknown>) => {
      const answer = await fetch(`${main.apiUrl}/v1/upload-tokens`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(policy),
      });
      return (await answer.json()) as { token: string };
    };
    const mint = async (policy: Record<string, unknown>) => (await minted(policy)).token;
    // A copy of a token, past its expiry (a page left open past it).
    const found = await main.context.db.findUploadTokenByHash(hashKey(await mint({})));
    const expired = `upt_${newId()}${newId()}`;
    if (found) {
      await main.context.db.createUploadToken({
        ...found.token,
        id: newId('upt_id_'),
        hash: hashKey(expired),
        expiresAt: Date.now() - 1,
      });
    }
    await configure('token-expired', { apiKey: '', uploadToken: expired });
    await pick('token-expired', [{ name: 'profile.jpg', type: 'image/jpeg', size: 30_000 }]);
    await configure('token-exhausted', { apiKey: '', uploadToken: await mint({ maxFiles: 1 }) });
    await pick('token-exhausted', [
      { name: 'receipt-1.pdf', type: 'application/pdf', size: 20_000 },
      { name: 'receipt-2.pdf', type: 'application/pdf', size: 20_000 },
    ]);
    await configure('token-required', {
      apiKey: await keyFor(main, [origin], { requireUploadToken: true }),
    });
    await pick('token-required', [
      { name: 'drawing.png', type: 'image/png', size: 0, image: true },
    ]);
    // A provider answering the mint as the docs' route does: its limits show in the hint.
    const limited3 = await minted({
      maxFiles: 3,
      maxFileSize: 5_000_000,
      maxBytes: 20_000_000,
      types: ['image/*'],
    });
    await tab.evaluate(`Object.assign(document.querySelector('#token-limits'), {
      apiKey: '', tokenProvider: async () => (${JSON.stringify(limited3)}) })`);
    await pick('token-limits', [{ name: 'portrait.png', type: 'image/png', size: 0, image: true }]);
    // A provider whose route is not there: the page's server answers 404.
    await tab.evaluate(`Object.assign(document.querySelector('#token-provider-failed'), {
      apiKey: '',
      tokenProvider: async () => (await fetch('/api/upload-token', { method: 'POST' })).json(),
    })`);
    await pick('token-provider-failed', [
      { name: 'cv.pdf', type: 'application/pdf', size: 40_000 },
    ]);
    await waitFor('token-expired', ['failed']);
    await waitFor('token-exhausted', ['done', 'failed']);
    await waitFor('token-required', ['failed']);
    await waitFor('token-limits', ['done']);
    await waitFor('token-provider-failed', ['failed']);

    await configure('rate-limited', {
      endpoint: limited.apiUrl,
      apiKey: await keyFor(limited, [origin]),
    });
    await pick('rate-limited', [{ name: 'first.txt', type: 'text/plain', size: 100 }]);
    await waitFor('rate-limited', ['done']);
    await pick('rate-limited', [{ name: 'second.txt', type: 'text/plain', size: 100 }]);
    await tab.waitForFunction(() =>
      (
        document.querySelector('#rate-limited') as unknown as { files: { status: string }[] }
      ).files.some((f) => f.status === 'retrying'),
    );

    // Parts 2 and 3 of the big file stay in flight; part 1 goes through.
    // Parts carry their number in a header (every part goes to the same URL). One handler
    // for the page: unrouting would let the held parts go.
    let offline = false;
    await tab.route(/\/v1\/parts$/, (route) => {
      if (['2', '3'].includes(route.request().headers()['x-filehost-part'] ?? '')) return;
      return offline ? route.abort('internetdisconnected') : route.fallback();
    });
    await pick('uploading', [
      { name: 'conference-talk.mov', type: 'video/quicktime', size: 14 * 1024 * 1024 },
    ]);
    await pick('paused', [
      { name: 'interview-raw.wav', type: 'audio/wav', size: 12 * 1024 * 1024 },
    ]);
    for (const id of ['uploading', 'paused']) {
      await tab.waitForFunction((selector) => {
        const files = (
          document.querySelector(selector) as unknown as { files: { fraction: number }[] }
        ).files;
        return (files[0]?.fraction ?? 0) > 0.3;
      }, `#${id}`);
    }
    await tab.evaluate(() => {
      const element = document.querySelector('#paused') as unknown as {
        files: { id: string }[];
        pauseFile(id: string): void;
      };
      element.pauseFile(element.files[0]?.id ?? '');
    });

    offline = true;
    await pick('network', [{ name: 'backup.zip', type: 'application/zip', size: 300_000 }]);
    await waitFor('network', ['failed']);

    // <file-list> states.
    const listProject = await keyFor(main, [origin]);
    const client = async (apiKey: string) => {
      const { FilehostClient } = await import('../../src/client/client.js');
      return new FilehostClient({
        endpoint: main.apiUrl,
        apiKey,
        // The key only works from the page's origin: say we are it (this is Node).
        fetch: (input, init) =>
          fetch(input, {
            ...init,
            headers: { ...(init?.headers as Record<string, string>), Origin: origin },
          }),
      });
    };
    const seeded = await client(listProject);
    // A real photo-sized image, so its row shows the CDN's thumbnail of it.
    const photo = await photoJpeg();
    for (const name of [
      'q3-report.pdf',
      'team photo.jpg',
      '<b>bold</b> & "quoted".html',
      `${'very-long-name-'.repeat(8)}.zip`,
    ]) {
      const image = name.endsWith('.jpg');
      await seeded.upload(new Blob([image ? new Uint8Array(photo) : 'x'.repeat(2000)]), {
        name,
        type: image ? 'image/jpeg' : 'application/octet-stream',
      });
    }
    await seeded.sign({ name: 'still-uploading.mov', size: 50_000_000, type: 'video/quicktime' });
    const moreProject = await keyFor(main, [origin]);
    const more = await client(moreProject);
    for (let index = 0; index < 6; index++)
      await more.upload(new Blob([`file ${index}`]), { name: `photo-${index}.txt` });
    // The loading list's requests never get an answer, so it stays loading.
    const loadingKey = await keyFor(main, [origin]);
    await tab.route(/\/v1\/files\?/, async (route) => {
      if (route.request().headers().authorization !== `Bearer ${loadingKey}`)
        await route.continue();
    });
    await configure('list-loading', { endpoint: main.apiUrl, apiKey: loadingKey });
    await configure('list-empty', { endpoint: main.apiUrl, apiKey: await keyFor(main, [origin]) });
    await configure('list-error', {
      endpoint: main.apiUrl,
      apiKey: await keyFor(main, ['https://shop.example']),
    });
    await configure('list-files', { endpoint: main.apiUrl, apiKey: listProject, pageSize: 10 });
    await configure('list-more', { endpoint: main.apiUrl, apiKey: moreProject });
    await tab.waitForFunction(() =>
      ['#list-empty', '#list-error', '#list-files', '#list-more'].every(
        (selector) => !document.querySelector(selector)?.hasAttribute('loading'),
      ),
    );

    // Every language in both schemes at both widths.
    const shots = [
      ['light', 1320],
      ['dark', 1320],
      ['light', 390],
      ['dark', 390],
    ] as const;
    if (lang !== 'en') {
      // Its words arrive on use, from locales/ beside the bundle.
      await tab.waitForFunction(
        () =>
          document.querySelector('#empty')?.shadowRoot?.querySelector('.browse')?.textContent !==
          'choose files',
      );
    }
    let phone = false;
    for (const [scheme, width] of shots) {
      if (width === 390 && !phone) {
        phone = true;
        // A phone: a touch screen and a (fake) camera, so "Take a photo" is offered.
        const cdp = await tab.context().newCDPSession(tab);
        await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
        await tab.evaluate(async () => {
          const section = document.createElement('section');
          section.innerHTML =
            '<h2>A phone, with directory and capture</h2><file-uploader id="phone" multiple directory capture="environment"></file-uploader>';
          document.querySelector('main')?.prepend(section);
          await new Promise((resolve) => setTimeout(resolve, 300));
        });
      }
      await tab.emulateMedia({ colorScheme: scheme });
      await tab.setViewportSize({ width, height: 900 });
      // The whole page in the viewport: rows off screen are skipped by content-visibility
      // (and would show as empty boxes in a full-page capture).
      const height = await tab.evaluate(() => document.documentElement.scrollHeight);
      await tab.setViewportSize({ width, height });
      await tab.waitForTimeout(300);
      // The Link field has the keyboard's focus (Tab from the drop zone's button), as a
      // keyboard user sees it.
      await tab.locator('#link .browse').focus();
      await tab.keyboard.press('Tab');
      await tab.waitForFunction(
        () =>
          document.querySelector('#link')?.shadowRoot?.activeElement?.getAttribute('name') ===
          'url',
      );
      const name = lang === 'en' ? 'elements' : `elements-${lang}`;
      const path = join(outDir, `${name}-${scheme}-${width}.png`);
      await tab.screenshot({ path, fullPage: true });
      console.log(`saved ${path}`);
      // The Link states alone, to look at closely.
      const boxes = [];
      for (const id of ['link', 'link-importing', 'link-done', 'link-failed', 'link-invalid']) {
        const box = await tab.locator(`section:has(> #${id})`).boundingBox();
        if (box) boxes.push(box);
      }
      const x = Math.min(...boxes.map((box) => box.x));
      const y = Math.min(...boxes.map((box) => box.y));
      const clip = {
        x,
        y,
        width: Math.max(...boxes.map((box) => box.x + box.width)) - x,
        height: Math.max(...boxes.map((box) => box.y + box.height)) - y,
      };
      const linkPath = join(outDir, `link-${lang}-${scheme}-${width}.png`);
      await tab.screenshot({ path: linkPath, clip, fullPage: true });
      console.log(`saved ${linkPath}`);
    }
    // The image editor (#57), open over the page, in each scheme at each width: a photo with
    // the choice of shapes, the crop area focused from the keyboard and moved once.
    await tab.evaluate(async () => {
      const section = document.createElement('section');
      section.innerHTML =
        '<h2>image-editor</h2><file-uploader id="editor" image-editor crop-aspect="free 1:1 4:3 16:9"></file-uploader>';
      document.querySelector('main')?.append(section);
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    for (const [scheme, width] of shots) {
      await tab.emulateMedia({ colorScheme: scheme });
      await tab.setViewportSize({ width, height: width > 600 ? 900 : 844 });
      await tab.evaluate(async () => {
        const canvas = new OffscreenCanvas(1600, 1200);
        const g = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
        const sky = g.createLinearGradient(0, 0, 1600, 1200);
        sky.addColorStop(0, '#0ea5e9');
        sky.addColorStop(1, '#a21caf');
        g.fillStyle = sky;
        g.fillRect(0, 0, 1600, 1200);
        g.fillStyle = '#fde047';
        g.beginPath();
        g.arc(1100, 420, 260, 0, Math.PI * 2);
        g.fill();
        const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 });
        const element = document.querySelector('#editor') as HTMLElement & {
          editImage(file: File): void;
        };
        element.editImage(new File([blob], 'sunset.jpg', { type: 'image/jpeg' }));
      });
      await untilCropBoxPlaced(tab, 'editor');
      await tab.keyboard.press('ArrowLeft');
      await tab.waitForTimeout(400);
      const editorPath = join(outDir, `editor-${lang}-${scheme}-${width}.png`);
      await tab.screenshot({ path: editorPath });
      console.log(`saved ${editorPath}`);
      await tab.keyboard.press('Escape');
      await tab.waitForFunction(
        () => !document.querySelector('#editor')?.shadowRoot?.querySelector('dialog'),
      );
    }
  } finally {
    closeRemote();
    await browser.close();
    await server.close();
    await mainService.close();
    await limitedService.close();
  }
}

/**
 * A 1600x1200 JPEG (a diagonal sky-to-violet gradient, a sun) made from raw pixels. Not from
 * an SVG: sharp's loaders are one set per process, and the service in this process blocks
 * every loader but the image types it serves once it has made a variant (`loadSharp` in
 * variant-encoder.ts), so an SVG read after the first language's thumbnails fails with
 * "VipsForeignLoadSvg… is blocked". Raw pixels go through no loader.
 */
async function photoJpeg(): Promise<Buffer> {
  const width = 1600;
  const height = 1200;
  const pixels = Buffer.alloc(width * height * 3);
  const from = [0x0e, 0xa5, 0xe9];
  const to = [0xa2, 0x1c, 0xaf];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      const sun = (x - 1100) ** 2 + (y - 420) ** 2 < 260 ** 2;
      const mix = (x / width + y / height) / 2;
      for (let c = 0; c < 3; c++) {
        pixels[at + c] = sun
          ? ([0xfd, 0xe0, 0x47][c] as number)
          : Math.round((from[c] as number) * (1 - mix) + (to[c] as number) * mix);
      }
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg()
    .toBuffer();
}

async function all(): Promise<void> {
  const langs = (process.env.SCREENSHOT_LANGS ?? 'en de ar ja').split(/\s+/).filter(Boolean);
  for (const lang of langs) await main(lang);
}

all().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
