import { aTimeout, expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/index.js';
import { FilehostClient } from '../../src/client/client.js';
import type { FileListElement } from '../../src/elements/file-list/file-list.js';
import type { FileUploaderElement } from '../../src/elements/file-uploader/file-uploader.js';
import { registerTranslation } from '../../src/elements/shared/localize.js';
import de from '../../src/locales/de.js';
import { rememberUpload } from '../helpers/remembered-upload.js';
import { auditInBothSchemes } from './axe-audit.js';
import { file, HELD, LOADED, network, next, pick, project } from './helpers.js';

registerTranslation(de);

type Project = Awaited<ReturnType<typeof project>>;

/**
 * axe-core (pinned) on the element in light and dark: zero violations of any rule it runs,
 * each named with the nodes it found, so a failure says what to fix.
 */
function audit(element: HTMLElement, state: string): Promise<void> {
  return auditInBothSchemes(
    element,
    state,
    () => (element as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete,
  );
}

async function uploader(p: Project, lang = 'en'): Promise<FileUploaderElement> {
  const root = await fixture<HTMLElement>(
    html`<div lang=${lang}><file-uploader endpoint=${p.endpoint} api-key=${p.publishableKey} multiple></file-uploader></div>`,
  );
  const element = root.querySelector('file-uploader') as FileUploaderElement;
  await element.updateComplete;
  return element;
}

async function list(p: Project, pageSize = 50): Promise<FileListElement> {
  // In a short scroller: its end is out of view, so the list does not load the next page
  // by itself before a test (or a keyboard user) asks for it.
  const root = await fixture<HTMLElement>(
    html`<div style="height: 120px; overflow: auto"><file-list endpoint=${p.endpoint} api-key=${p.publishableKey} page-size=${pageSize}></file-list></div>`,
  );
  const element = root.querySelector('file-list') as FileListElement;
  await element.updateComplete;
  return element;
}

async function seed(p: Project, names: string[]): Promise<void> {
  const client = new FilehostClient({ endpoint: p.endpoint, apiKey: p.publishableKey });
  for (const name of names) {
    await client.upload(new Blob([`content of ${name}`], { type: 'text/plain' }), { name });
    await aTimeout(2);
  }
}

const statuses = (element: FileUploaderElement) => element.files.map((f) => f.status);

/** The element's focused control (through its shadow root), as a keyboard user is on it. */
function focused(element: HTMLElement): HTMLElement | null {
  return (element.shadowRoot?.activeElement as HTMLElement | null) ?? null;
}

/** Presses Tab until focus is on the control `matches` picks, as a keyboard user would. */
async function tabTo(
  element: HTMLElement,
  matches: (el: HTMLElement) => boolean,
): Promise<HTMLElement> {
  (document.activeElement as HTMLElement | null)?.blur();
  for (let presses = 0; presses < 40; presses++) {
    await sendKeys({ press: 'Tab' });
    const on = focused(element);
    if (on && matches(on)) return on;
  }
  throw new Error('never reached by Tab');
}

const named = (name: string) => (el: HTMLElement) =>
  (el.getAttribute('aria-label') ?? el.textContent?.trim()) === name;

/** Every text the live region took, with when. */
function recordLive(element: HTMLElement): { texts: string[]; times: number[] } {
  const region = element.shadowRoot?.querySelector('[role=status]') as HTMLElement;
  const seen = { texts: [] as string[], times: [] as number[] };
  new MutationObserver(() => {
    seen.texts.push((region.textContent ?? '').replace(/\u00a0$/, ''));
    seen.times.push(performance.now());
  }).observe(region, { childList: true, characterData: true, subtree: true });
  return seen;
}

describe('accessibility (axe-core, light and dark)', () => {
  afterEach(() => network('restore'));

  it('<file-uploader>: empty, dragging, uploading, paused, failed, done, interrupted', async () => {
    const p = await project();
    const element = await uploader(p);
    await audit(element, 'empty');

    const zone = element.shadowRoot?.querySelector('.dropzone') as HTMLElement;
    const transfer = new DataTransfer();
    transfer.items.add(file('x.txt', 1));
    zone.dispatchEvent(new DragEvent('dragenter', { dataTransfer: transfer, bubbles: true }));
    await waitUntil(() => element.dragging, undefined, LOADED);
    await audit(element, 'dragging');
    zone.dispatchEvent(new DragEvent('dragleave', { dataTransfer: transfer, bubbles: true }));
    await waitUntil(() => !element.dragging, undefined, LOADED);

    await network('hold', '\\[upload ', 60_000);
    pick(element, [file('slow.bin', 5000)]);
    await waitUntil(() => statuses(element).join() === 'uploading', 'uploading', {
      timeout: 10_000,
    });
    await audit(element, 'uploading');
    element.pauseFile(element.files[0]?.id ?? '');
    await waitUntil(() => statuses(element).join() === 'paused', 'paused', LOADED);
    await audit(element, 'paused');
    await network('restore');

    const failing = await uploader({ ...p, publishableKey: 'pk_live_unknown' });
    pick(failing, [file('refused.txt', 10, 'text/plain')]);
    await waitUntil(() => statuses(failing).join() === 'failed', 'failed', { timeout: 10_000 });
    await audit(failing, 'failed');

    const done = await uploader(p);
    const finished = next(done, 'upload-complete');
    pick(done, [file('a.txt', 10, 'text/plain'), file('b.txt', 20, 'text/plain', 2)]);
    await finished;
    await audit(done, 'done');

    const later = await project();
    await rememberUpload([later.endpoint, later.publishableKey]);
    const interrupted = await uploader(later);
    await waitUntil(() => statuses(interrupted).join() === 'interrupted', 'interrupted', {
      timeout: 10_000,
    });
    await audit(interrupted, 'interrupted');
  });

  it('<file-list>: empty, loading, paged, failed', async () => {
    const p = await project();
    const empty = await list(p);
    await empty.pageLoaded;
    await audit(empty, 'empty');

    await network('hold', '/v1/files', 60_000);
    const loading = await list(p);
    await waitUntil(() => loading.loading, undefined, LOADED);
    await audit(loading, 'loading');
    await network('restore');

    const paged = await project();
    await seed(paged, ['one.txt', 'two.txt', 'three.txt']);
    const pages = await list(paged, 2);
    await pages.pageLoaded;
    await audit(pages, 'paged');

    const failed = await list({ ...p, publishableKey: 'pk_live_unknown' });
    await failed.pageLoaded;
    await waitUntil(() => failed.shadowRoot?.querySelector('[part=error]'), undefined, LOADED);
    await audit(failed, 'failed');
  });
});

describe('keyboard only', () => {
  afterEach(() => network('restore'));

  it('chooses files: Tab reaches “choose files” and Enter opens the picker', async () => {
    const element = await uploader(await project());
    const input = element.shadowRoot?.querySelector('.pick-files') as HTMLInputElement;
    let opened = 0;
    input.addEventListener('click', () => opened++);
    await tabTo(element, named('choose files'));
    await sendKeys({ press: 'Enter' });
    expect(opened).to.equal(1);
    await tabTo(element, named('choose files'));
    await sendKeys({ press: 'Space' });
    expect(opened).to.equal(2);
  });

  it('pauses, resumes and removes an upload, and retries a failed one', async () => {
    const p = await project();
    const element = await uploader(p);
    await network('log');
    const answeredPuts = async () =>
      ((await network('answered')) as string[]).filter((line) => line.startsWith('PUT')).length;
    const putsBefore = await answeredPuts();
    // A file of one part finishes sending its bytes when paused: hold them until it is (its
    // PUT on its way, not only the row saying 'uploading', which it does before the PUT leaves).
    await network('hold', '\\[upload ', HELD);
    pick(element, [file('slow.bin', 5000)]);
    await waitUntil(
      async () => statuses(element).join() === 'uploading' && (await network('held')) === 1,
      'uploading',
      LOADED,
    );
    await tabTo(element, named('Pause uploading slow.bin'));
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => statuses(element).join() === 'paused', 'paused by keyboard', LOADED);
    await network('release');
    // Its bytes landed while it was paused: resumed, it is only completed.
    await waitUntil(
      async () => (await answeredPuts()) === putsBefore + 1,
      'the held PUT not answered',
      LOADED,
    );
    await element.updateComplete;
    await tabTo(element, named('Resume uploading slow.bin'));
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => statuses(element).join() === 'done', 'resumed by keyboard', {
      timeout: 20_000,
    });
    await element.updateComplete;
    await tabTo(element, named('Remove slow.bin'));
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => element.files.length === 0, 'removed by keyboard', LOADED);

    await network('drop', '/v1/uploads/sign$');
    pick(element, [file('again.txt', 10, 'text/plain')]);
    await waitUntil(() => statuses(element).join() === 'failed', 'failed', { timeout: 20_000 });
    await network('restore');
    await element.updateComplete;
    await tabTo(element, named('Retry uploading again.txt'));
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => statuses(element).join() === 'done', 'retried by keyboard', {
      timeout: 20_000,
    });
  });

  it('pages the list: Tab reaches “Load more” and Enter loads the next page', async () => {
    const p = await project();
    await seed(p, ['one.txt', 'two.txt', 'three.txt']);
    const element = await list(p, 2);
    await element.pageLoaded;
    await element.updateComplete;
    expect(element.files).to.have.length(2);
    // Focus scrolls the button into view, where the list may load the next page by itself
    // before Enter (on a busy machine it did): either way the keyboard brought the page.
    (document.activeElement as HTMLElement | null)?.blur();
    for (let presses = 0; presses < 40 && element.files.length < 3; presses++) {
      await sendKeys({ press: 'Tab' });
      const on = focused(element);
      if (on && named('Load more')(on)) {
        await sendKeys({ press: 'Enter' });
        break;
      }
    }
    await waitUntil(() => element.files.length === 3, 'the next page', LOADED);
  });
});

describe('the live region, word for word', () => {
  afterEach(() => network('restore'));

  for (const [lang, words] of [
    [
      'en',
      {
        added: '1 file added.',
        a: 'a.txt uploaded. All uploads finished: 1 uploaded.',
        b: 'b.txt uploaded. All uploads finished: 1 uploaded.',
        failed:
          'bad.txt was not uploaded: The key was not recognized. Check the api-key setting. Uploads finished: 0 uploaded, 1 failed.',
      },
    ],
    [
      'de',
      {
        added: '1 Datei hinzugefügt.',
        a: 'a.txt hochgeladen. Alle Uploads abgeschlossen: 1 hochgeladen.',
        b: 'b.txt hochgeladen. Alle Uploads abgeschlossen: 1 hochgeladen.',
        failed:
          'bad.txt wurde nicht hochgeladen: Der Schlüssel ist unbekannt. Prüfen Sie die Einstellung api-key. Uploads abgeschlossen: 0 hochgeladen, 1 fehlgeschlagen.',
      },
    ],
  ] as const) {
    it(`says the start, each file’s end and a failure (${lang})`, async () => {
      const p = await project();
      const element = await uploader(p, lang);
      const live = recordLive(element);
      pick(element, [file('a.txt', 10, 'text/plain')]);
      await waitUntil(() => live.texts.length === 2, 'a.txt', { timeout: 10_000 });
      // A second after the last announcement, the next is said at once.
      await aTimeout(1100);
      pick(element, [file('b.txt', 10, 'text/plain', 2)]);
      await waitUntil(() => live.texts.length === 4, `b.txt: ${live.texts.join(' | ')}`, {
        timeout: 10_000,
      });
      expect(live.texts).to.deep.equal([words.added, words.a, words.added, words.b]);

      const failing = await uploader({ ...p, publishableKey: 'pk_live_unknown' }, lang);
      const said = recordLive(failing);
      pick(failing, [file('bad.txt', 10, 'text/plain')]);
      await waitUntil(() => said.texts.length === 2, 'bad.txt', { timeout: 10_000 });
      expect(said.texts).to.deep.equal([words.added, words.failed]);
    });
  }

  it('says at most one thing a second while many files finish, every word still said', async () => {
    const element = await uploader(await project());
    const live = recordLive(element);
    const names = ['f1.txt', 'f2.txt', 'f3.txt', 'f4.txt', 'f5.txt', 'f6.txt'];
    const finished = next(element, 'upload-complete');
    pick(
      element,
      names.map((name, index) => file(name, 10, 'text/plain', index + 1)),
    );
    await finished;
    // Files that finish together (small files go in one batch request) leave words queued
    // at one a second: the last is said some seconds after the last file finished.
    await waitUntil(
      () => live.texts.join(' ').includes('All uploads finished: 6 uploaded.'),
      'the summary is said',
      { timeout: 8000 },
    );
    for (let i = 1; i < live.times.length; i++) {
      expect(
        (live.times[i] ?? 0) - (live.times[i - 1] ?? 0),
        live.texts.join(' | '),
      ).to.be.at.least(950);
    }
    const all = live.texts.join(' ');
    expect(live.texts[0]).to.equal('6 files added.');
    for (const name of names) expect(all).to.contain(`${name} uploaded.`);
    expect(live.texts.length).to.be.below(names.length + 2);
  });
});
