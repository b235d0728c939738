import { aTimeout, expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/index.js';
import type { FileRecord } from '../../src/api/types.js';
import { FilehostClient } from '../../src/client/client.js';
import type { FileListElement } from '../../src/elements/file-list/file-list.js';
import { GROUP_SIZE } from '../../src/elements/file-list/row-groups.js';
import type { FileUploaderElement } from '../../src/elements/file-uploader/file-uploader.js';
import { bytesOfType } from '../helpers/bytes.js';
import {
  file,
  HELD,
  LOADED,
  network,
  next,
  pick,
  project,
  text,
  untilUnreachable,
} from './helpers.js';

type Project = Awaited<ReturnType<typeof project>>;

/** Uploads files one after another (so their order is known) and returns their ids, newest first. */
async function seed(p: Project, names: string[]): Promise<string[]> {
  const client = new FilehostClient({ endpoint: p.endpoint, apiKey: p.publishableKey });
  const ids: string[] = [];
  for (const name of names) {
    const uploaded = await client.upload(new Blob([`content of ${name}`], { type: 'text/plain' }), {
      name,
    });
    ids.unshift(uploaded.id);
    // Distinct milliseconds keep "newest first" unambiguous for the assertions.
    await aTimeout(2);
  }
  return ids;
}

async function list(
  p: { endpoint: string; publishableKey: string },
  pageSize = 50,
): Promise<FileListElement> {
  const element = await fixture<FileListElement>(
    html`<file-list endpoint=${p.endpoint} api-key=${p.publishableKey} page-size=${pageSize}></file-list>`,
  );
  await element.pageLoaded;
  await element.updateComplete;
  return element;
}

/**
 * An uploader and a list linked to it by `for`, the list's first page loaded. `listStyle`
 * is on the list from the start (a list pushed below the fold must not load more at once).
 */
async function linkedPair(
  p: Project,
  pageSize: number,
  listStyle = '',
): Promise<{ uploader: FileUploaderElement; element: FileListElement }> {
  const wrapper = await fixture<HTMLElement>(html`
    <div>
      <file-uploader id="up" endpoint=${p.endpoint} api-key=${p.publishableKey}></file-uploader>
      <file-list for="up" endpoint=${p.endpoint} api-key=${p.publishableKey} page-size=${pageSize}
        style=${listStyle}></file-list>
    </div>
  `);
  const uploader = wrapper.querySelector('file-uploader') as FileUploaderElement;
  const element = wrapper.querySelector('file-list') as FileListElement;
  await element.pageLoaded;
  await element.updateComplete;
  return { uploader, element };
}

function rows(element: FileListElement): HTMLElement[] {
  return [...(element.shadowRoot?.querySelectorAll<HTMLElement>('.item') ?? [])];
}

function names(element: FileListElement): string[] {
  return rows(element).map((row) => row.querySelector('.name')?.getAttribute('title') ?? '');
}

describe('<file-list>', () => {
  afterEach(() => network('restore'));

  it('shows the first page, newest first, each file with its link, size, type and time', async () => {
    const p = await project();
    await seed(p, ['one.txt', 'two.txt', 'three.txt']);
    const element = await list(p);
    expect(names(element)).to.deep.equal(['three.txt', 'two.txt', 'one.txt']);
    const first = rows(element)[0] as HTMLElement;
    const link = first.querySelector('a') as HTMLAnchorElement;
    expect(link.href.startsWith(`${p.cdnUrl}/`)).to.equal(true);
    expect(link.target).to.equal('_blank');
    expect(link.rel).to.equal('noopener noreferrer');
    const meta = first.querySelector('.meta')?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
    // "content of three.txt" is 20 bytes.
    expect(meta).to.match(/^20 B · text\/plain · Uploaded (now|\d+ seconds? ago)$/);
    const time = first.querySelector('time') as HTMLTimeElement;
    expect(Date.parse(time.dateTime)).to.be.closeTo(Date.now(), 60_000);
    expect(time.title).to.not.equal('');
    expect(text(element)).to.contain('That is all 3 files.');
    await expect(element).to.be.accessible();
  });

  it('shows a private file (url null) by its name alone: no link, no thumbnail, nothing to copy', async () => {
    const p = await project();
    const client = new FilehostClient({ endpoint: p.endpoint, apiKey: p.publishableKey });
    const png = bytesOfType('image/png', 200);
    await client.upload(new Blob([png], { type: 'image/png' }), { name: 'open.png' });
    await aTimeout(2);
    await client.upload(new Blob([png], { type: 'image/png' }), {
      name: 'hidden.png',
      visibility: 'private',
    });
    const element = await list(p);
    expect(names(element)).to.deep.equal(['hidden.png', 'open.png']);
    const [hidden, open] = rows(element) as [HTMLElement, HTMLElement];
    expect(hidden.querySelector('a')).to.equal(null);
    expect(hidden.querySelector('img')).to.equal(null);
    expect(hidden.querySelector('.copy')).to.equal(null);
    expect(hidden.querySelector('.name')?.textContent?.trim()).to.equal('hidden.png');
    expect(open.querySelector('a')).to.not.equal(null);
    expect(open.querySelector('img')).to.not.equal(null);
    expect(open.querySelector('.copy')).to.not.equal(null);
    await expect(element).to.be.accessible();
  });

  it('draws an image as a thumbnail the CDN made at the size of its row on this screen, not the photo', async () => {
    const p = await project();
    const canvas = new OffscreenCanvas(1200, 800);
    const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
    context.fillStyle = '#3a7';
    context.fillRect(0, 0, 1200, 800);
    const photo = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 });
    const client = new FilehostClient({ endpoint: p.endpoint, apiKey: p.publishableKey });
    await client.upload(photo, { name: 'photo.jpg' });
    const element = await list(p);
    // A photo has a placeholder: its thumbnail is drawn over it, the variant inside the box.
    await waitUntil(() => rows(element)[0]?.querySelector('.picture img'), 'drawn', {
      timeout: 10_000,
    });
    const img = rows(element)[0]?.querySelector('.picture img') as HTMLImageElement;
    const side = Math.ceil(40 * devicePixelRatio);
    const src = new URL(img.src);
    expect(Object.fromEntries(src.searchParams)).to.deep.equal({
      w: String(side),
      h: String(side),
      fit: 'inside',
      format: 'auto',
    });
    await waitUntil(() => img.complete && img.naturalWidth > 0, 'the thumbnail loads', {
      timeout: 10_000,
    });
    // The CDN's ladder step at or above the row's size, the photo's shape, never the photo.
    expect(img.naturalWidth / img.naturalHeight).to.be.closeTo(1.5, 0.1);
    expect(img.naturalWidth).to.be.within(side, 128);
    const answer = await fetch(img.src, { headers: { Accept: 'image/avif,image/webp,*/*' } });
    expect(answer.headers.get('Content-Type')).to.equal('image/avif');
    expect(answer.headers.get('X-Variant')).to.match(/^w=\d+,h=\d+,fit=inside,format=avif/);
    expect((await answer.blob()).size).to.be.below(photo.size);
  });

  it('pages to the end across several pages with "Load more", with events', async () => {
    const p = await project();
    const ids = await seed(p, ['a', 'b', 'c', 'd', 'e']);
    const loads: { files: FileRecord[]; hasMore: boolean; loaded: number }[] = [];
    const element = await fixture<FileListElement>(html`<file-list page-size="2"></file-list>`);
    element.addEventListener('list-load', (event) => loads.push(event.detail));
    // Far below the fold, so only the button loads more here.
    element.style.cssText = 'display:block;margin-top:300vh';
    Object.assign(element, { endpoint: p.endpoint, apiKey: p.publishableKey });
    await waitUntil(() => loads.length === 1, undefined, LOADED);
    expect(names(element)).to.deep.equal(['e', 'd']);
    for (const expected of [
      ['e', 'd', 'c', 'b'],
      ['e', 'd', 'c', 'b', 'a'],
    ]) {
      await element.updateComplete;
      const more = element.shadowRoot?.querySelector<HTMLButtonElement>('.more');
      expect(more?.textContent?.trim()).to.equal('Load more');
      more?.click();
      await waitUntil(() => names(element).length === expected.length, undefined, LOADED);
      expect(names(element)).to.deep.equal(expected);
    }
    await element.updateComplete;
    expect(element.shadowRoot?.querySelector('.more')).to.equal(null);
    expect(text(element)).to.contain('That is all 5 files.');
    expect(loads.map((l) => [l.files.length, l.hasMore, l.loaded])).to.deep.equal([
      [2, true, 2],
      [2, true, 4],
      [1, false, 5],
    ]);
    expect(element.files.map((f) => f.id)).to.deep.equal(ids);
  });

  it('loads the next pages by itself as the user scrolls to the end', async () => {
    const p = await project();
    await seed(p, ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    const element = await list(p, 2);
    expect(names(element)).to.have.length.at.least(2);
    // The list is on screen: its end comes into view and the pages follow until the last.
    await waitUntil(() => names(element).length === 7, 'did not page to the end', {
      timeout: 10_000,
    });
    expect(names(element)).to.deep.equal(['g', 'f', 'e', 'd', 'c', 'b', 'a']);
  });

  it('invites an empty project to upload', async () => {
    const p = await project();
    const element = await list(p);
    expect(text(element)).to.contain('No files yet.');
    expect(text(element)).to.contain('Files you upload appear here');
    await expect(element).to.be.accessible();
  });

  it('shows a loading state without jumping, then the files', async () => {
    const p = await project();
    await seed(p, ['x']);
    await network('hold', '/v1/files', HELD);
    const element = await fixture<FileListElement>(
      html`<file-list endpoint=${p.endpoint} api-key=${p.publishableKey}></file-list>`,
    );
    await element.updateComplete;
    expect(element.hasAttribute('loading')).to.equal(true);
    expect(element.shadowRoot?.querySelectorAll('.skeleton .item')).to.have.length(3);
    const loadingHeight = element.getBoundingClientRect().height;
    await expect(element).to.be.accessible();
    await network('release');
    await element.pageLoaded;
    await element.updateComplete;
    expect(element.hasAttribute('loading')).to.equal(false);
    expect(names(element)).to.deep.equal(['x']);
    expect(loadingHeight).to.be.greaterThan(100);
  });

  it('explains origin_not_allowed and invalid_key in plain words, with the code and a retry', async () => {
    const blocked = await project({ allowTestOrigin: false });
    const errors: { code: string; status: number; message: string; details: object }[] = [];
    const element = await fixture<FileListElement>(html`<file-list></file-list>`);
    element.addEventListener('list-error', (event) => errors.push(event.detail));
    Object.assign(element, { endpoint: blocked.endpoint, apiKey: blocked.publishableKey });
    await waitUntil(() => errors.length === 1, undefined, LOADED);
    await element.updateComplete;
    expect([errors[0]?.code, errors[0]?.status]).to.deep.equal(['origin_not_allowed', 403]);
    expect(text(element)).to.contain(`This page (${location.origin}) may not use this key.`);
    // The event names the request, so a page's report finds its log lines.
    const details = (errors[0]?.details ?? {}) as { requestId?: string };
    expect(details.requestId).to.match(/^[0-9a-f-]{36}$/);
    // ... and so do its details on the page (not its words).
    expect(text(element)).to.contain(`(origin_not_allowed · ${details.requestId})`);
    expect(errors[0]?.message).not.to.contain(details.requestId ?? '');
    expect(element.shadowRoot?.querySelector('.retry')?.textContent?.trim()).to.equal('Try again');
    await expect(element).to.be.accessible();

    element.apiKey = 'pk_live_unknown';
    await waitUntil(() => errors.length === 2, undefined, LOADED);
    await element.updateComplete;
    expect(errors[1]?.code).to.equal('invalid_key');
    expect(text(element)).to.contain('The key was not recognized');
  });

  it('retries after an error and then shows the files', async () => {
    const p = await project();
    await seed(p, ['back.txt']);
    await network('drop', '/v1/files');
    await untilUnreachable(`${p.endpoint}/v1/files?probe`);
    const element = await list(p);
    expect(text(element)).to.contain('The connection was lost');
    await network('restore');
    element.shadowRoot?.querySelector<HTMLButtonElement>('.retry')?.click();
    await waitUntil(() => names(element).length === 1, undefined, LOADED);
    expect(names(element)).to.deep.equal(['back.txt']);
  });

  it('shows a new upload at the top at once through the linked uploader, without duplicates later', async () => {
    const p = await project();
    await seed(p, ['old-1', 'old-2', 'old-3']);
    const { uploader, element } = await linkedPair(p, 2, 'display:block;margin-top:300vh');
    expect(names(element)).to.deep.equal(['old-3', 'old-2']);
    const success = next(uploader, 'upload-success');
    pick(uploader, [file('fresh.txt', 10, 'text/plain')]);
    await success;
    await element.updateComplete;
    expect(names(element)).to.deep.equal(['fresh.txt', 'old-3', 'old-2']);
    // The next page starts after old-2: nothing repeats, nothing is skipped.
    await element.loadMore();
    await element.updateComplete;
    expect(names(element)).to.deep.equal(['fresh.txt', 'old-3', 'old-2', 'old-1']);
    await element.refresh();
    await element.loadMore();
    await element.updateComplete;
    expect(names(element)).to.deep.equal(['fresh.txt', 'old-3', 'old-2', 'old-1']);
  });

  it('ignores uploads of another uploader when linked, and of another project when not', async () => {
    const p = await project();
    const other = await project();
    const wrapper = await fixture<HTMLElement>(html`
      <div>
        <file-uploader id="mine" endpoint=${p.endpoint} api-key=${p.publishableKey}></file-uploader>
        <file-uploader id="theirs" endpoint=${other.endpoint} api-key=${other.publishableKey}></file-uploader>
        <file-list endpoint=${p.endpoint} api-key=${p.publishableKey}></file-list>
      </div>
    `);
    const [mine, theirs] = [...wrapper.querySelectorAll('file-uploader')] as FileUploaderElement[];
    const element = wrapper.querySelector('file-list') as FileListElement;
    await element.pageLoaded;
    let success = next(theirs as FileUploaderElement, 'upload-success');
    pick(theirs as FileUploaderElement, [file('not-ours.txt', 10, 'text/plain')]);
    await success;
    success = next(mine as FileUploaderElement, 'upload-success');
    pick(mine as FileUploaderElement, [file('ours.txt', 10, 'text/plain')]);
    await success;
    await element.updateComplete;
    expect(names(element)).to.deep.equal(['ours.txt']);
  });

  it('lets the latest source win: an answer for an old key never shows', async () => {
    const slow = await project();
    const fast = await project();
    await seed(slow, ['stale.txt']);
    await seed(fast, ['current.txt']);
    await network('log');
    const listsEnded = async () =>
      ((await network('ended')) as string[]).filter((line) => line.includes('/v1/files')).length;
    const endedBefore = await listsEnded();
    // The old key's list is held on its way until the new key's has been shown, then let go:
    // its answer (or its end, if the element called it off) comes last, whatever the load.
    await network('hold', `/v1/files`, HELD, true);
    const element = await fixture<FileListElement>(
      html`<file-list endpoint=${slow.endpoint} api-key=${slow.publishableKey}></file-list>`,
    );
    await waitUntil(async () => (await network('held')) === 1, 'the old list not held', LOADED);
    element.apiKey = fast.publishableKey;
    await element.updateComplete;
    await element.pageLoaded;
    await network('release');
    await waitUntil(
      async () => (await listsEnded()) === endedBefore + 2,
      'the old list never ended',
      LOADED,
    );
    await element.updateComplete;
    expect(names(element)).to.deep.equal(['current.txt']);
  });

  it('shows pending uploads as such, without a dead link', async () => {
    const p = await project();
    const client = new FilehostClient({ endpoint: p.endpoint, apiKey: p.publishableKey });
    await client.sign({ name: 'in-progress.mov', size: 1000, type: 'video/quicktime' });
    const element = await list(p);
    const row = rows(element)[0] as HTMLElement;
    expect(row.querySelector('a')).to.equal(null);
    expect(row.querySelector('img')).to.equal(null);
    expect(row.textContent).to.contain('Uploading…');
    expect(row.querySelector('.copy')).to.equal(null);
  });

  it('moves between files with the keyboard and chooses one with Enter or a click', async () => {
    const p = await project();
    await seed(p, ['a', 'b', 'c']);
    const element = await list(p);
    const chosen: string[] = [];
    element.addEventListener('file-select', (event) => chosen.push(event.detail.file.name));
    const [first, , third] = rows(element) as [HTMLElement, HTMLElement, HTMLElement];
    expect(rows(element).map((row) => row.tabIndex)).to.deep.equal([0, -1, -1]);
    first.focus();
    await sendKeys({ press: 'ArrowDown' });
    expect(
      element.shadowRoot?.activeElement?.querySelector('.name')?.getAttribute('title'),
    ).to.equal('b');
    await sendKeys({ press: 'End' });
    expect(element.shadowRoot?.activeElement).to.equal(third);
    await sendKeys({ press: 'ArrowUp' });
    await sendKeys({ press: 'Enter' });
    await sendKeys({ press: 'Home' });
    await element.updateComplete;
    expect(rows(element).map((row) => row.tabIndex)).to.deep.equal([0, -1, -1]);
    // Tab from the row goes to its link, then its copy button.
    await sendKeys({ press: 'Tab' });
    expect(element.shadowRoot?.activeElement?.tagName).to.equal('A');
    await sendKeys({ press: 'Tab' });
    expect(element.shadowRoot?.activeElement?.classList.contains('copy')).to.equal(true);
    (third.querySelector('.meta') as HTMLElement).click();
    // Newest first: the rows are c, b, a.
    expect(chosen).to.deep.equal(['b', 'a']);
  });

  it('keeps keyboard focus on the same file when an upload arrives at the top of a long list', async function () {
    // A hundred uploads one after another to seed the list (in order: the rows' order is the
    // test's): on a machine loaded like CI's they outlast the 90 s every other test gets, and
    // outlasted 120 s at load 35 with every stage side by side.
    this.timeout(300_000);
    const p = await project();
    // A full first group of rows (GROUP_SIZE), so the new file opens a group above it.
    await seed(
      p,
      Array.from({ length: GROUP_SIZE }, (_, i) => `f${i}`),
    );
    const { uploader, element } = await linkedPair(p, 100);
    (rows(element)[0] as HTMLElement).focus();
    await sendKeys({ press: 'End' });
    const last = rows(element).at(-1) as HTMLElement;
    expect(element.shadowRoot?.activeElement).to.equal(last);

    const success = next(uploader, 'upload-success');
    pick(uploader, [file('fresh.txt', 10, 'text/plain')]);
    await success;
    await element.updateComplete;
    expect(names(element)[0]).to.equal('fresh.txt');
    // The same row element, still focused, and still the list's tab stop.
    expect(element.shadowRoot?.activeElement).to.equal(last);
    expect(rows(element).filter((row) => row.tabIndex === 0)).to.deep.equal([last]);
    await sendKeys({ press: 'ArrowUp' });
    expect(
      element.shadowRoot?.activeElement?.querySelector('.name')?.getAttribute('title'),
    ).to.equal('f1');
  });

  it('copies a file’s link and says so', async () => {
    await network('grant-clipboard');
    const p = await project();
    await seed(p, ['share.txt']);
    const element = await list(p);
    const button = element.shadowRoot?.querySelector<HTMLButtonElement>(
      '.copy',
    ) as HTMLButtonElement;
    expect(button.textContent?.trim()).to.equal('Copy link: share.txt');
    button.click();
    // Generous: a clipboard write on a loaded machine may outlast the default second.
    await waitUntil(() => button.textContent?.trim() === 'Copied: share.txt', undefined, {
      timeout: 10_000,
    });
    expect(await navigator.clipboard.readText()).to.equal(element.files[0]?.url);
    await waitUntil(
      () =>
        element.shadowRoot?.querySelector('[role=status]')?.textContent?.trim() ===
        'Link to share.txt copied.',
      undefined,
      { timeout: 10_000 },
    );
  });

  it('renders hostile names as plain text that stays in its row', async () => {
    const p = await project();
    const client = new FilehostClient({ endpoint: p.endpoint, apiKey: p.publishableKey });
    const hostile = [
      '<img src=x onerror="window.__pwned=1">.html',
      `${'long'.repeat(60)}.txt`,
      'right\u202Eto-left.exe',
    ];
    for (const name of hostile) await client.upload(new Blob(['x']), { name });
    const element = await list(p);
    await aTimeout(100);
    expect((window as { __pwned?: number }).__pwned).to.equal(undefined);
    expect(element.shadowRoot?.querySelectorAll('.name img')).to.have.length(0);
    expect(names(element)).to.include('<img src=x onerror="window.__pwned=1">.html');
    expect(names(element)).to.include('rightto-left.exe');
    for (const row of rows(element)) {
      expect(row.scrollWidth).to.be.at.most(row.clientWidth + 1);
    }
  });

  it('takes replacement texts and the page’s language', async () => {
    const p = await project();
    await seed(p, ['x']);
    const element = await fixture<FileListElement>(html`
      <div lang="fr"><file-list endpoint=${p.endpoint} api-key=${p.publishableKey}
        .strings=${{ copyLink: 'Copier le lien' }}></file-list></div>
    `).then((div) => div.querySelector('file-list') as FileListElement);
    await element.pageLoaded;
    await element.updateComplete;
    expect(element.shadowRoot?.querySelector('.copy')?.textContent?.trim()).to.equal(
      'Copier le lien: x',
    );
    // French relative time: 'maintenant' (now) when listed at once, or so many seconds ago
    // when a loaded machine took that long between the upload and the list.
    expect(element.shadowRoot?.querySelector('.meta')?.textContent).to.match(
      /Uploaded (maintenant|il y a \d+ secondes?)\s/,
    );
  });
});
