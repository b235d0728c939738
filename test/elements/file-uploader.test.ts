import { aTimeout, expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/index.js';
import type { FileRecord } from '../../src/api/types.js';
import type {
  FileUploaderElement,
  UploadFailure,
} from '../../src/elements/file-uploader/file-uploader.js';
import { registerTranslation } from '../../src/elements/shared/localize.js';
import de from '../../src/locales/de.js';
import { publicUrlOf } from '../helpers/public-url.js';
import { PAST_SHORT_URL_TTL_MS } from '../helpers/short-lived-urls.js';
import {
  bytes,
  device,
  file,
  HELD,
  LOADED,
  landTogether,
  network,
  next,
  pick,
  png,
  project,
  sameBytes,
  text,
  throttleUploads,
  transferOf,
  until,
  uploadToken,
  usage,
} from './helpers.js';

const MiB = 1024 * 1024;
/** Larger than the files sent together by the batch upload (64 KiB): signed, PUT, completed. */
const OVER_BATCH = 64 * 1024 + 1;

async function uploader(
  p: { endpoint: string; publishableKey: string },
  extra: Partial<FileUploaderElement> = {},
): Promise<FileUploaderElement> {
  const element = await fixture<FileUploaderElement>(
    html`<file-uploader endpoint=${p.endpoint} api-key=${p.publishableKey} multiple></file-uploader>`,
  );
  Object.assign(element, extra);
  await element.updateComplete;
  return element;
}

function shadow(element: HTMLElement, selector: string): HTMLElement {
  const found = element.shadowRoot?.querySelector<HTMLElement>(selector);
  if (!found) throw new Error(`no ${selector}`);
  return found;
}

/** The button with this accessible name (`aria-label`, else its text). */
function labelled(element: HTMLElement, name: string): HTMLButtonElement {
  const found = [...(element.shadowRoot?.querySelectorAll<HTMLButtonElement>('button') ?? [])].find(
    (button) => (button.getAttribute('aria-label') ?? button.textContent?.trim()) === name,
  );
  if (!found) throw new Error(`no button named ${name}`);
  return found;
}

function statuses(element: FileUploaderElement): string[] {
  return element.files.map((f) => f.status);
}

describe('<file-uploader>', () => {
  afterEach(() => network('restore'));

  describe('uploading', () => {
    it('uploads one file: events in order, the record, and the same bytes on the CDN', async () => {
      const p = await project();
      const element = await uploader(p);
      const content = bytes(2048, 3);
      const seen: string[] = [];
      for (const type of [
        'file-add',
        'upload-start',
        'upload-success',
        'upload-complete',
      ] as const) {
        element.addEventListener(type, () => seen.push(type));
      }
      const done = next(element, 'upload-complete');
      pick(element, [new File([content], 'hello.txt', { type: 'text/plain' })]);
      const result = await done;
      expect(seen).to.deep.equal(['file-add', 'upload-start', 'upload-success', 'upload-complete']);
      expect(result.failed).to.deep.equal([]);
      const [record] = result.successful as [FileRecord];
      expect(record.status).to.equal('ready');
      expect(record.name).to.equal('hello.txt');
      expect(record.mime).to.equal('text/plain');
      expect(publicUrlOf(record).startsWith(p.cdnUrl)).to.equal(true);
      expect(await sameBytes(publicUrlOf(record), content)).to.equal(true);
      expect(statuses(element)).to.deep.equal(['done']);
      const link = shadow(element, '.name a') as HTMLAnchorElement;
      expect(link.href).to.equal(record.url);
      expect(link.target).to.equal('_blank');
      expect(link.rel).to.equal('noopener noreferrer');
      await expect(element).to.be.accessible();
    });

    it('uploads private files with visibility="private": no URL, no link, not on the CDN', async () => {
      const p = await project();
      const element = await uploader(p, { visibility: 'private' });
      const done = next(element, 'upload-success');
      pick(element, [new File([bytes(3000, 4)], 'secret.txt', { type: 'text/plain' })]);
      const { record } = await done;
      expect(record.visibility).to.equal('private');
      expect(record.url).to.equal(null);
      expect(element.shadowRoot?.querySelector('.name a')).to.equal(null);
      expect(shadow(element, '.name').textContent?.trim()).to.equal('secret.txt');
      const cdn = await fetch(`${p.cdnUrl}/${record.id}/secret.txt`);
      expect(cdn.status).to.equal(404);
      await expect(element).to.be.accessible();
    });

    it('uploads many files at once, each to its own record', async () => {
      const p = await project();
      const element = await uploader(p);
      const files = Array.from({ length: 6 }, (_, i) =>
        file(`f${i}.bin`, 1000 + i * 100, 'application/octet-stream', i + 1),
      );
      const done = next(element, 'upload-complete');
      pick(element, files);
      const { successful, failed } = await done;
      expect(failed).to.have.length(0);
      expect(successful.map((r) => r.name).sort()).to.deep.equal(files.map((f) => f.name).sort());
      for (const [index, f] of files.entries()) {
        const record = successful.find((r) => r.name === f.name) as FileRecord;
        expect(await sameBytes(publicUrlOf(record), bytes(f.size, index + 1))).to.equal(true);
      }
      expect(text(element)).to.contain('6 of 6 uploaded');
    });

    it('sends a small file without upload progress events and reports its bytes once; a larger one as they go', async () => {
      const p = await project();
      const element = await uploader(p);
      const seen: string[] = [];
      element.addEventListener('upload-progress', (event) =>
        seen.push(
          `${event.detail.file.name} ${event.detail.bytesUploaded}/${event.detail.bytesTotal}`,
        ),
      );
      element.addEventListener('upload-success', (event) =>
        seen.push(`${event.detail.file.name} done`),
      );
      // What each PUT asked of the browser: with an upload listener, every progress step is a
      // message between the browser's processes and a copy of Uppy's map of files.
      const listening: boolean[] = [];
      const send = XMLHttpRequest.prototype.send;
      XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body) {
        listening.push(this.upload.onprogress !== null);
        send.call(this, body);
      };
      try {
        pick(element, [file('small.bin', 64 * 1024, undefined, 1)]);
        await next(element, 'upload-complete', 20_000);
        pick(element, [file('larger.bin', 64 * 1024 + 1, undefined, 2)]);
        await next(element, 'upload-complete', 20_000);
      } finally {
        XMLHttpRequest.prototype.send = send;
      }
      expect(listening).to.deep.equal([false, true]);
      expect(seen.filter((line) => line.startsWith('small'))).to.deep.equal([
        'small.bin 65536/65536',
        'small.bin done',
      ]);
      const larger = seen.filter((line) => line.startsWith('larger'));
      expect(larger.at(-1)).to.equal('larger.bin done');
      expect(larger.at(-2)).to.equal('larger.bin 65537/65537');
    });

    it('sends a multi-part file part by part, in parallel, with progress summed per file', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      const content = bytes(12 * MiB + 5, 7);
      const progress: number[] = [];
      element.addEventListener('upload-progress', (event) => {
        expect(event.detail.bytesTotal).to.equal(content.length);
        progress.push(event.detail.bytesUploaded);
      });
      const success = next(element, 'upload-success', 60_000);
      pick(element, [new File([content], 'big.bin')]);
      const { record } = await success;
      expect(record.size).to.equal(content.length);
      expect(await sameBytes(publicUrlOf(record), content)).to.equal(true);
      const log = (await network('log')) as string[];
      const puts = log.filter(
        (line) => line.startsWith('PUT') && line.includes(`[upload ${record.id} part `),
      );
      expect(puts.map((line) => /part (\d+)\]$/.exec(line)?.[1]).sort()).to.deep.equal([
        '1',
        '2',
        '3',
      ]);
      expect(progress.at(-1)).to.equal(content.length);
      expect(
        progress.every((value, i) => i === 0 || value >= (progress[i - 1] as number) - 5 * MiB),
      ).to.equal(true);
    });

    it('stores the metadata attribute with every file', async () => {
      const p = await project();
      const element = await fixture<FileUploaderElement>(
        html`<file-uploader endpoint=${p.endpoint} api-key=${p.publishableKey} metadata='{"user":"u42"}'></file-uploader>`,
      );
      const success = next(element, 'upload-success');
      pick(element, [file('m.txt', 10, 'text/plain')]);
      const { record } = await success;
      expect(record.metadata).to.deep.equal({ user: 'u42' });
    });

    it('shows a thumbnail for images', async () => {
      const p = await project();
      const element = await uploader(p);
      const success = next(element, 'upload-success');
      pick(element, [await png()]);
      await success;
      await element.updateComplete;
      const img = shadow(element, '.thumbnail img') as HTMLImageElement;
      expect(img.src.startsWith('blob:')).to.equal(true);
      await waitUntil(
        () => img.complete && img.naturalWidth === 32,
        'thumbnail did not load',
        LOADED,
      );
    });

    it('previews a large photo at the size of its row, made off the main thread, not the photo itself', async () => {
      const p = await project();
      const element = await uploader(p, { noAutoUpload: true });
      const canvas = new OffscreenCanvas(3000, 2000);
      const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
      context.fillStyle = '#a37';
      context.fillRect(0, 0, 3000, 2000);
      const photo = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 });
      pick(element, [new File([photo], 'photo.jpg', { type: 'image/jpeg' })]);
      await waitUntil(() => element.shadowRoot?.querySelector('.thumbnail img'), 'no preview', {
        timeout: 10_000,
      });
      const img = shadow(element, '.thumbnail img') as HTMLImageElement;
      expect(img.src.startsWith('blob:')).to.equal(true);
      await waitUntil(() => img.complete && img.naturalWidth > 0, 'preview did not load', LOADED);
      const side = Math.ceil(40 * devicePixelRatio);
      // Its longest side at the row's size, its shape kept.
      expect(img.naturalWidth).to.equal(side);
      expect(img.naturalHeight).to.be.closeTo((side * 2) / 3, 1);
      const preview = await (await fetch(img.src)).blob();
      expect(preview.size).to.be.below(photo.size / 10);
    });

    it('waits for the Upload button with no-auto-upload', async () => {
      const p = await project();
      const element = await uploader(p, { noAutoUpload: true });
      pick(element, [file('later.txt', 10, 'text/plain')]);
      await element.updateComplete;
      await aTimeout(200);
      expect(statuses(element)).to.deep.equal(['queued']);
      const success = next(element, 'upload-success');
      shadow(element, '.action.primary').click();
      await success;
      expect(statuses(element)).to.deep.equal(['done']);
    });

    it('replaces its file when a new one is chosen without multiple', async () => {
      const p = await project();
      const element = await fixture<FileUploaderElement>(
        html`<file-uploader endpoint=${p.endpoint} api-key=${p.publishableKey}></file-uploader>`,
      );
      let success = next(element, 'upload-success');
      pick(element, [file('one.txt', 10, 'text/plain')]);
      await success;
      success = next(element, 'upload-success');
      pick(element, [file('two.txt', 10, 'text/plain')]);
      await success;
      expect(element.files.map((f) => f.name)).to.deep.equal(['two.txt']);
    });
  });

  describe('speed and time left', () => {
    it("shows a large file's speed and time left as its parts go, in the page's language", async () => {
      const p = await project();
      const element = await uploader(p);
      // 3 MB/s: a 24 MiB file (five parts) takes about eight seconds.
      await throttleUploads(3_000_000);
      const state = () => element.shadowRoot?.querySelector('.state')?.textContent ?? '';
      pick(element, [file('talk.mov', 24 * 1024 * 1024, 'video/quicktime')]);
      await waitUntil(() => /MB\/s · \d+\sseconds left$/.test(state()), 'English', {
        timeout: 10_000,
      });
      const speed = Number(/([\d.]+)\sMB\/s/.exec(state())?.[1]);
      expect(speed, state()).to.be.within(1.5, 4.5);
      registerTranslation(de);
      element.lang = 'de';
      await waitUntil(() => /MB\/s · noch \d+\sSekunden$/.test(state()), 'German', {
        timeout: 5_000,
      });
      await network('restore');
      await waitUntil(() => statuses(element)[0] === 'done', 'done', { timeout: 20_000 });
      // Done: no speed any more.
      expect(text(element)).not.to.contain('MB/s');
    });
  });

  describe('many files at once', () => {
    const signs = (log: string[]) =>
      log.filter((line) => /^POST \S+\/v1\/uploads\/sign$/.test(line));
    const batchCompletes = (log: string[]) =>
      log.filter((line) => /^POST \S+\/v1\/uploads\/complete$/.test(line));
    const singleCompletes = (log: string[]) =>
      log.filter((line) => /^POST \S+\/v1\/uploads\/[^/]+\/complete$/.test(line));

    it('signs files over 64 KiB picked together in one call and completes them in batches', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      // Their bytes land at once, whatever the machine's load: what one batching window of
      // completes must then gather (left alone, a loaded machine spreads the landings past
      // the window, and a call per file is then right).
      await landTogether('/v1/parts', 12);
      const done = next(element, 'upload-complete', 30_000);
      const picked = Array.from({ length: 12 }, (_, i) =>
        file(`small-${i}.txt`, OVER_BATCH + i, 'text/plain', i),
      );
      pick(element, picked);
      const result = await done;
      await network('restore');
      expect(result.successful.length).to.equal(12);
      expect(result.failed).to.deep.equal([]);
      for (const record of result.successful) {
        const index = Number(/small-(\d+)/.exec(record.name)?.[1]);
        expect(record.size).to.equal(OVER_BATCH + index);
      }
      const log = (await network('log')) as string[];
      // Two calls sign all twelve: the first eight at once, then the rest (three, if a
      // loaded machine spreads them past the window).
      expect(signs(log).length).to.be.at.most(3);
      // Landed together, completed together: a few calls for twelve, two files or more a
      // call. (The page handles the twelve answers one task each, and the complete window
      // is 15 ms: a page slowed by a loaded machine spreads them over several windows, 5
      // calls under a load of 27 on 2 cores; a call per file would be batching broken.)
      expect(batchCompletes(log).length).to.be.at.least(1);
      expect(batchCompletes(log).length + singleCompletes(log).length).to.be.at.most(6);
    });

    it('sends the first files of many while the others are still being signed', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      const signedBefore = signs((await network('answered')) as string[]).length;
      // The first sign call (the first eight files) is answered; the next is held until the
      // first eight are done (a fixed hold may end first on a loaded machine).
      await network('hold', '/v1/uploads/sign$', HELD, true, 1);
      const done = next(element, 'upload-complete', 60_000);
      const finished: string[] = [];
      element.addEventListener('upload-success', (event) => finished.push(event.detail.file.name));
      pick(
        element,
        Array.from({ length: 20 }, (_, i) =>
          file(`many-${i}.txt`, OVER_BATCH + i, 'text/plain', i),
        ),
      );
      await waitUntil(() => finished.length === 8, 'the first eight not done', { timeout: 20_000 });
      // Done (PUT and completed) while the second sign was still held.
      const answered = (await network('answered')) as string[];
      expect(signs(answered).length - signedBefore).to.equal(1);
      expect([...finished].sort()).to.deep.equal(
        Array.from({ length: 8 }, (_, i) => `many-${i}.txt`).sort(),
      );
      expect(await network('release')).to.equal(1);
      const result = await done;
      expect(result.successful.length).to.equal(20);
      // Each completed by a batch call, even one that landed alone (no CORS preflight).
      expect(singleCompletes((await network('log')) as string[])).to.deep.equal([]);
    });

    it('sends a file added alone by the single calls, as before', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      const success = next(element, 'upload-success');
      pick(element, [file('alone.txt', 300, 'text/plain')]);
      await success;
      const log = (await network('log')) as string[];
      expect(signs(log).length).to.equal(1);
      expect(singleCompletes(log).length).to.equal(1);
      expect(batchCompletes(log)).to.deep.equal([]);
    });

    it('lets one refused file fail alone: the others of its batch go up', async () => {
      const p = await project();
      const element = await uploader(p);
      const done = next(element, 'upload-complete', 30_000);
      // Over the free plan's cap: the batch sign is refused for this one (its index).
      const huge = new File([new ArrayBuffer(100_000_001)], 'huge.bin');
      pick(element, [file('one.txt', 100, 'text/plain', 1), file('two.txt', 100, 'text/plain', 2)]);
      pick(element, [file('three.txt', 100, 'text/plain', 3), huge]);
      const result = await done;
      expect(result.successful.map((record) => record.name).sort()).to.deep.equal([
        'one.txt',
        'three.txt',
        'two.txt',
      ]);
      expect(result.failed.map((entry) => [entry.file.name, entry.failure.code])).to.deep.equal([
        ['huge.bin', 'too_large'],
      ]);
    });
  });

  describe('small files by the batch upload', () => {
    const batches = (log: string[]) =>
      log.filter((line) => /^POST \S+\/v1\/upload\/batch$/.test(line));
    const others = (log: string[]) => log.filter((line) => /\/v1\/uploads\/|^PUT /.test(line));

    it('sends small files added together in a few requests: no sign, no PUT, no complete', async () => {
      const p = await project();
      const element = await uploader(p, { metadata: { album: 'a1' } });
      await network('log');
      const done = next(element, 'upload-complete', 30_000);
      const picked = Array.from({ length: 30 }, (_, i) =>
        file(`tiny-${i}.txt`, 1000 + i, 'text/plain', i + 1),
      );
      pick(element, picked);
      const result = await done;
      expect(result.failed).to.deep.equal([]);
      expect(result.successful.length).to.equal(30);
      for (const record of result.successful) {
        const index = Number(/tiny-(\d+)/.exec(record.name)?.[1]);
        expect(record.size).to.equal(1000 + index);
        expect(record.metadata).to.deep.equal({ album: 'a1' });
      }
      const sample = result.successful.find((record) => record.name === 'tiny-7.txt');
      expect(await sameBytes(publicUrlOf(sample as FileRecord), bytes(1007, 8))).to.equal(true);
      const log = (await network('log')) as string[];
      // 30 files over six requests at once, at least eight a request: four requests.
      expect(batches(log).length).to.equal(4);
      expect(others(log)).to.deep.equal([]);
      expect(statuses(element).every((status) => status === 'done')).to.equal(true);
      expect(text(element)).to.contain('30 of 30 uploaded');
    });

    it('sends small files added one by one within a moment together too', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      const done = next(element, 'upload-complete', 30_000);
      for (let i = 0; i < 5; i++)
        element.addFiles([file(`one-${i}.txt`, 100 + i, 'text/plain', i)]);
      const result = await done;
      expect(result.successful.length).to.equal(5);
      const log = (await network('log')) as string[];
      expect(batches(log).length).to.equal(1);
      expect(others(log)).to.deep.equal([]);
    });

    it('fails a file the service refuses alone, with its own error; the others go up', async () => {
      const p = await project();
      const { token } = await uploadToken(p.publishableKey, { policy: { types: ['text/plain'] } });
      const element = await uploader(p, { uploadToken: token });
      const done = next(element, 'upload-complete', 30_000);
      pick(element, [
        file('a.txt', 100, 'text/plain', 1),
        file('b.pdf', 200, 'application/pdf', 2),
        file('c.txt', 300, 'text/plain', 3),
      ]);
      const result = await done;
      expect(result.successful.map((record) => record.name).sort()).to.deep.equal([
        'a.txt',
        'c.txt',
      ]);
      expect(result.failed.map((entry) => [entry.file.name, entry.failure.code])).to.deep.equal([
        ['b.pdf', 'unsupported_type'],
      ]);
    });

    it('sends each file with its SHA-256: one damaged on the way is refused, and goes again alone', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      // One byte flipped in the middle of the first batch request: in the larger file.
      await network('flip', '/v1/upload/batch$', undefined, true);
      const small = bytes(100, 4);
      const damaged = bytes(60_000, 5);
      const done = next(element, 'upload-complete', 30_000);
      pick(element, [new File([small], 'small.bin'), new File([damaged], 'damaged.bin')]);
      const { successful, failed } = await done;
      expect(failed).to.deep.equal([]);
      const record = (name: string) => successful.find((r) => r.name === name) as FileRecord;
      expect(await sameBytes(publicUrlOf(record('damaged.bin')), damaged)).to.equal(true);
      expect(await sameBytes(publicUrlOf(record('small.bin')), small)).to.equal(true);
      const log = (await network('log')) as string[];
      expect(batches(log).length).to.equal(1);
      // Sent again alone, by the usual steps.
      expect(log.filter((line) => line.startsWith('PUT')).length).to.equal(1);
    });

    it('with checksum="off", sends no digest: damage on the way is not caught', async () => {
      const p = await project();
      const element = await uploader(p, { checksum: 'off' });
      await network('flip', '/v1/upload/batch$', undefined, true);
      const damaged = bytes(60_000, 6);
      const done = next(element, 'upload-complete', 30_000);
      pick(element, [new File([bytes(100, 7)], 'small.bin'), new File([damaged], 'damaged.bin')]);
      const { successful } = await done;
      const record = successful.find((r) => r.name === 'damaged.bin') as FileRecord;
      expect(await sameBytes(publicUrlOf(record), damaged)).to.equal(false);
    });

    it('cancels a whole batch request when all its files are cancelled: none is stored', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      const endedBefore = batches((await network('ended')) as string[]).length;
      await network('hold', '/v1/upload/batch$', HELD);
      let succeeded = 0;
      element.addEventListener('upload-success', () => succeeded++);
      pick(element, [file('a.bin', 500), file('b.bin', 500, undefined, 2)]);
      // Its request left the page (held), not only made: a file stopped before that is left
      // out of it (batch-upload.test.ts), which is not what this test is about.
      await waitUntil(
        async () =>
          statuses(element).every((s) => s === 'uploading') && (await network('held')) === 1,
        'not sending',
        LOADED,
      );
      element.cancelAll();
      await network('release');
      // What the service holds is final once the page's request ended: called off, or (were it
      // not) answered after the service stored its files, however long a loaded machine takes.
      await waitUntil(
        async () => batches((await network('ended')) as string[]).length === endedBefore + 1,
        'the batch request never ended',
        LOADED,
      );
      expect(succeeded).to.equal(0);
      expect((await usage(p.publishableKey)).files).to.equal(0);
    });

    it('a file removed or paused while its request is on its way: removed, it is not reported; paused, it ends done', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('hold', '/v1/upload/batch$', HELD);
      const done = next(element, 'upload-complete', 30_000);
      pick(
        element,
        Array.from({ length: 20 }, (_, i) => file(`r-${i}.txt`, 500, 'text/plain', i + 1)),
      );
      // 20 files, at least 8 a request: three requests (8, 8, 4), all held once they left the
      // page. A row shows 'uploading' as its request is made (its files hashed, the client
      // loaded): a file stopped before that is left out of it, so wait until all three left.
      await waitUntil(
        async () =>
          statuses(element).every((s) => s === 'uploading') && (await network('held')) === 3,
        'not sending',
        LOADED,
      );
      const [paused, removed] = element.files.slice(-2).map((f) => f.id);
      element.pauseFile(paused ?? '');
      element.removeFile(removed ?? '');
      await network('release');
      const { successful, failed } = await done;
      expect(failed).to.deep.equal([]);
      expect(successful.length).to.equal(19);
      expect(successful.some((record) => record.name === 'r-19.txt')).to.equal(false);
      expect(element.files.length).to.equal(19);
      expect(statuses(element).every((s) => s === 'done')).to.equal(true);
    });
    it('a file paused and resumed while its batch request is on its way waits for that answer: stored once, reported once', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('hold', '/v1/upload/batch$', HELD);
      await network('log');
      const reported: string[] = [];
      element.addEventListener('upload-success', (event) =>
        reported.push((event as CustomEvent<{ record: FileRecord }>).detail.record.name),
      );
      const done = next(element, 'upload-complete', 30_000);
      pick(element, [file('kept.bin', 500), file('resumed.bin', 500, undefined, 2)]);
      // Its one request left the page (held), not only made (see above).
      await waitUntil(
        async () =>
          statuses(element).every((s) => s === 'uploading') && (await network('held')) === 1,
        'not sending',
        LOADED,
      );
      // Its bytes left with the other file's (which keeps the request going): the answer
      // says whether the service holds them.
      const resumed = element.files.find((f) => f.name === 'resumed.bin')?.id ?? '';
      element.pauseFile(resumed);
      element.resumeFile(resumed);
      await network('release');
      const { successful, failed } = await done;
      expect(failed).to.deep.equal([]);
      expect(successful.map((record) => record.name).sort()).to.deep.equal([
        'kept.bin',
        'resumed.bin',
      ]);
      expect(reported.sort()).to.deep.equal(['kept.bin', 'resumed.bin']);
      expect(statuses(element)).to.deep.equal(['done', 'done']);
      // Not sent again alone (a sign, a PUT, a complete): the service holds one of each.
      expect(others((await network('log')) as string[])).to.deep.equal([]);
      expect((await usage(p.publishableKey)).files).to.equal(2);
    });

    it('a file resumed after every file of its batch request was paused starts again alone, untouched by the end of that request', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('hold', '/v1/upload/batch$', HELD);
      const errors: string[] = [];
      element.addEventListener('upload-error', (event) =>
        errors.push((event as CustomEvent<{ file: { name: string } }>).detail.file.name),
      );
      pick(element, [file('stays.bin', 500), file('goes.bin', 500, undefined, 2)]);
      await waitUntil(
        async () =>
          statuses(element).every((s) => s === 'uploading') && (await network('held')) === 1,
        'not sending',
        LOADED,
      );
      const [stays, goes] = ['stays.bin', 'goes.bin'].map(
        (name) => element.files.find((f) => f.name === name)?.id ?? '',
      );
      // Both paused: the request is called off (the service keeps neither); then one resumed
      // before the page has heard that request end.
      element.pauseFile(stays ?? '');
      element.pauseFile(goes ?? '');
      element.resumeFile(goes ?? '');
      await network('release');
      const status = (name: string) => element.files.find((f) => f.name === name)?.status;
      // The called-off request's end is not a failure of the resumed file's own attempt
      // (which would show it retrying, then send it again).
      await waitUntil(
        () => ['done', 'retrying', 'failed'].includes(status('goes.bin') ?? ''),
        'goes.bin never ended',
        { timeout: 30_000 },
      );
      expect([status('stays.bin'), status('goes.bin')]).to.deep.equal(['paused', 'done']);
      expect(errors).to.deep.equal([]);
      expect((await usage(p.publishableKey)).files).to.equal(1);
    });
  });

  describe('adding files', () => {
    it('takes dropped files and shows the drop state while dragging', async () => {
      const p = await project();
      const element = await uploader(p);
      const zone = shadow(element, '.dropzone');
      const transfer = transferOf([file('dropped.txt', 10, 'text/plain')]);
      zone.dispatchEvent(
        new DragEvent('dragenter', { dataTransfer: transfer, bubbles: true, cancelable: true }),
      );
      await element.updateComplete;
      expect(element.hasAttribute('dragging')).to.equal(true);
      expect(text(element)).to.contain('Drop the files to upload them');
      await expect(element).to.be.accessible();
      const success = next(element, 'upload-success');
      zone.dispatchEvent(
        new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }),
      );
      await element.updateComplete;
      expect(element.hasAttribute('dragging')).to.equal(false);
      expect((await success).record.name).to.equal('dropped.txt');
    });

    it('takes pasted files', async () => {
      const p = await project();
      const element = await uploader(p);
      const success = next(element, 'upload-success');
      shadow(element, '.browse').dispatchEvent(
        new ClipboardEvent('paste', {
          clipboardData: transferOf([file('pasted.txt', 10, 'text/plain')]),
          bubbles: true,
          composed: true,
          cancelable: true,
        }),
      );
      expect((await success).record.name).to.equal('pasted.txt');
    });

    it('is operable by keyboard: Tab reaches the browse button, Enter opens the picker', async () => {
      const p = await project();
      const before = document.createElement('button');
      before.textContent = 'before';
      document.body.prepend(before);
      try {
        const element = await uploader(p);
        const input = shadow(element, 'input[type=file]');
        let opened = 0;
        input.addEventListener('click', (event) => {
          opened++;
          event.preventDefault();
        });
        before.focus();
        await sendKeys({ press: 'Tab' });
        expect(element.shadowRoot?.activeElement?.classList.contains('browse')).to.equal(true);
        await sendKeys({ press: 'Enter' });
        await sendKeys({ press: 'Space' });
        expect(opened).to.equal(2);

        const success = next(element, 'upload-success');
        pick(element, [file('k.txt', 10, 'text/plain')]);
        await success;
        await element.updateComplete;
        // Tab on to the file's link, then its Remove button, and press it.
        await sendKeys({ press: 'Tab' });
        expect(element.shadowRoot?.activeElement?.tagName).to.equal('A');
        await sendKeys({ press: 'Tab' });
        expect(element.shadowRoot?.activeElement?.textContent?.trim()).to.equal('Remove');
        await sendKeys({ press: 'Enter' });
        await element.updateComplete;
        expect(element.files).to.have.length(0);
      } finally {
        before.remove();
      }
    });
  });

  describe('folders and the camera', () => {
    /** A dropped folder as the browser hands it over: entries read batch by batch. */
    function folderEntry(name: string, children: unknown[]) {
      return {
        isFile: false,
        isDirectory: true,
        name,
        createReader() {
          let read = false;
          return {
            readEntries(done: (entries: unknown[]) => void) {
              done(read ? [] : children);
              read = true;
            },
          };
        },
      };
    }
    function fileEntry(item: File) {
      return {
        isFile: true,
        isDirectory: false,
        name: item.name,
        file: (done: (file: File) => void) => done(item),
      };
    }
    function dropEntries(element: FileUploaderElement, entries: unknown[]): void {
      const event = new DragEvent('drop', { bubbles: true, cancelable: true });
      Object.defineProperty(event, 'dataTransfer', {
        value: {
          types: ['Files'],
          files: [],
          items: entries.map((entry) => ({
            kind: 'file',
            webkitGetAsEntry: () => entry,
            getAsFile: () => null,
          })),
        },
      });
      shadow(element, '.dropzone').dispatchEvent(event);
    }
    const pathsOf = (records: FileRecord[]) =>
      records.map((record) => record.metadata.relativePath).sort();

    it('uploads every file of a dropped folder, each with its path, and lists what it refuses', async () => {
      const p = await project();
      const element = await uploader(p, { accept: '.txt', metadata: { user: 'u1' } });
      const done = next(element, 'upload-complete');
      // Same name, size and date in two folders: two files, not a duplicate.
      const twin = () =>
        new File([bytes(10, 1)], 'a.txt', { type: 'text/plain', lastModified: 1_700_000_000_000 });
      dropEntries(element, [
        folderEntry('trip', [
          fileEntry(twin()),
          folderEntry('day2', [
            fileEntry(twin()),
            fileEntry(file('c.txt', 12, 'text/plain', 3)),
            fileEntry(file('photo.png', 20, 'image/png', 4)),
          ]),
        ]),
      ]);
      const { successful } = await done;
      expect(pathsOf(successful)).to.deep.equal([
        'trip/a.txt',
        'trip/day2/a.txt',
        'trip/day2/c.txt',
      ]);
      expect(successful.every((record) => record.metadata.user === 'u1')).to.equal(true);
      await element.updateComplete;
      const refused = element.files.filter((f) => f.status === 'rejected');
      expect(refused.map((f) => [f.name, f.failure?.code])).to.deep.equal([
        ['photo.png', 'type_not_allowed'],
      ]);
    });

    it('offers "choose a folder" with directory, and uploads a folder picked with it', async () => {
      const p = await project();
      const element = await uploader(p, { directory: true });
      const buttons = [...(element.shadowRoot?.querySelectorAll('.browse') ?? [])];
      expect(buttons.map((b) => b.textContent?.trim())).to.deep.equal([
        'choose files',
        'choose a folder',
      ]);
      expect(text(element)).to.contain('Drag files or folders here, or');
      expect(shadow(element, '.pick-folder').hasAttribute('webkitdirectory')).to.equal(true);
      await expect(element).to.be.accessible();
      const done = next(element, 'upload-complete');
      await device({
        action: 'pick',
        selector: 'file-uploader .pick-folder',
        files: { 'album/x.txt': 'x', 'album/sub/y.txt': 'yy' },
        folder: 'album',
      });
      const { successful } = await done;
      expect(pathsOf(successful)).to.deep.equal(['album/sub/y.txt', 'album/x.txt']);
    });

    it('offers "Take a photo" with capture on a touch device with a camera, and not elsewhere', async () => {
      const p = await project();
      const desktop = await uploader(p, { capture: 'environment' });
      await aTimeout(50);
      await desktop.updateComplete;
      expect(desktop.shadowRoot?.querySelector('.camera')).to.equal(null);
      await device({ action: 'touch', enabled: true });
      try {
        const phone = await uploader(p, { capture: 'environment', id: 'phone' });
        await until(() => Boolean(phone.shadowRoot?.querySelector('.camera')));
        const camera = shadow(phone, '.camera');
        expect(camera.textContent?.trim()).to.equal('Take a photo');
        const input = shadow(phone, '.pick-photo') as HTMLInputElement;
        expect([input.accept, input.getAttribute('capture')]).to.deep.equal([
          'image/*',
          'environment',
        ]);
        let opened = 0;
        input.addEventListener('click', (event) => {
          opened++;
          event.preventDefault();
        });
        camera.click();
        expect(opened).to.equal(1);
        await expect(phone).to.be.accessible();
        const success = next(phone, 'upload-success');
        await device({
          action: 'pick',
          selector: '#phone .pick-photo',
          files: { 'IMG_0001.jpg': 'not really a jpeg' },
        });
        expect((await success).record.name).to.equal('IMG_0001.jpg');
      } finally {
        await device({ action: 'touch', enabled: false });
      }
    });
  });

  describe('disabled', () => {
    it('takes no files while disabled, by any way in, and says so to assistive technology', async () => {
      const p = await project();
      const element = await uploader(p, { disabled: true });
      const browse = shadow(element, '.browse') as HTMLButtonElement;
      expect(browse.disabled).to.equal(true);
      expect(element.hasAttribute('disabled')).to.equal(true);
      const zone = shadow(element, '.dropzone');
      const transfer = transferOf([file('no.txt', 10, 'text/plain')]);
      zone.dispatchEvent(
        new DragEvent('dragenter', { dataTransfer: transfer, bubbles: true, cancelable: true }),
      );
      zone.dispatchEvent(
        new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }),
      );
      browse.dispatchEvent(
        new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, composed: true }),
      );
      element.addFiles([file('no.txt', 10, 'text/plain')]);
      await element.updateComplete;
      expect(element.files).to.have.length(0);
      expect(element.hasAttribute('dragging')).to.equal(false);
      await expect(element).to.be.accessible();
      element.disabled = false;
      await element.updateComplete;
      const success = next(element, 'upload-success');
      pick(element, [file('yes.txt', 10, 'text/plain')]);
      expect((await success).record.name).to.equal('yes.txt');
    });
  });

  describe('checks before sending', () => {
    it('refuses files by type, size, count and emptiness, saying why, and sends nothing', async () => {
      const p = await project();
      await network('log');
      const element = await uploader(p, { accept: 'image/*,.pdf', maxFileSize: 1000, maxFiles: 2 });
      const errors: UploadFailure[] = [];
      element.addEventListener('upload-error', (event) => errors.push(event.detail));
      pick(element, [
        file('notes.txt', 10, 'text/plain'),
        file('huge.png', 5000, 'image/png'),
        new File([], 'empty.pdf', { type: 'application/pdf' }),
      ]);
      // Picked before the upload engine was in: shown as waiting, checked once it is.
      await until(() => errors.length >= 3);
      await element.updateComplete;
      expect(errors.map((e) => [e.code, e.step, e.status])).to.deep.equal([
        ['type_not_allowed', 'validate', 0],
        ['too_large', 'validate', 0],
        ['empty_body', 'validate', 0],
      ]);
      const shown = text(element);
      expect(shown).to.contain('This type of file is not accepted here. Accepted: image/*, .pdf.');
      expect(shown).to.contain('This file is too large. The limit is 1 kB.');
      expect(shown).to.contain('This file is empty');
      expect(statuses(element)).to.deep.equal(['rejected', 'rejected', 'rejected']);
      await expect(element).to.be.accessible();

      const more = next(element, 'upload-complete');
      pick(element, [
        file('a.png', 10, 'image/png', 1),
        file('b.png', 10, 'image/png', 2),
        file('c.png', 10, 'image/png', 3),
      ]);
      await more;
      expect(errors.at(-1)?.code).to.equal('too_many_files');
      expect(text(element)).to.contain('You can add at most 2 files.');
      const log = (await network('log')) as string[];
      expect(
        log.filter((line) => line.includes('notes.txt') || line.includes('huge.png')),
      ).to.deep.equal([]);
    });

    it('refuses a file already in the list, saying so, but takes another of the same name', async () => {
      const p = await project();
      const element = await uploader(p, { noAutoUpload: true });
      const errors: UploadFailure[] = [];
      element.addEventListener('upload-error', (event) => errors.push(event.detail));
      const first = new File([bytes(10, 1)], 'same.txt', { type: 'text/plain', lastModified: 1 });
      pick(element, [first]);
      const edited = new File([bytes(10, 2)], 'same.txt', { type: 'text/plain', lastModified: 2 });
      pick(element, [first, edited]);
      await until(() => errors.length >= 1);
      await element.updateComplete;
      expect(errors.map((e) => [e.code, e.step])).to.deep.equal([['duplicate_file', 'validate']]);
      expect(statuses(element)).to.deep.equal(['queued', 'queued', 'rejected']);
      expect(text(element)).to.contain('This file is already in the list.');
    });

    it('refuses a secret key without sending it anywhere', async () => {
      const p = await project();
      await network('log');
      const element = await uploader({
        endpoint: p.endpoint,
        publishableKey: 'sk_live_abcdefghijklmnopqrstuvwxyz',
      });
      const failed = next(element, 'upload-error');
      pick(element, [file('a.txt', 10, 'text/plain')]);
      const failure = await failed;
      expect(failure.code).to.equal('invalid_key');
      expect(text(element)).to.contain('secret key, which must never be in a web page');
      const log = (await network('log')) as string[];
      expect(log.some((line) => line.includes(p.endpoint))).to.equal(false);
    });

    it('explains a missing key', async () => {
      const p = await project();
      const element = await uploader({ endpoint: p.endpoint, publishableKey: '' });
      const failed = next(element, 'upload-error');
      pick(element, [file('a.txt', 10, 'text/plain')]);
      expect((await failed).code).to.equal('missing_auth');
      expect(text(element)).to.contain('No key is set');
    });
  });

  describe('errors from the service, in plain words', () => {
    it('origin_not_allowed: names this page’s origin and the allowlist', async () => {
      const p = await project({ allowTestOrigin: false });
      const element = await uploader(p);
      const failed = next(element, 'upload-error');
      pick(element, [file('a.txt', 10, 'text/plain')]);
      const failure = await failed;
      expect([failure.code, failure.status, failure.step]).to.deep.equal([
        'origin_not_allowed',
        403,
        'sign',
      ]);
      expect(failure.message).to.equal(
        `This page (${location.origin}) may not use this key. The key's list of allowed origins must include ${location.origin}.`,
      );
      await element.updateComplete;
      expect(text(element)).to.contain(failure.message);
      // The details name the request, so a user's report finds its log lines.
      const { requestId } = failure.details as { requestId?: string };
      expect(requestId).to.match(/^[0-9a-f-]{36}$/);
      expect(text(element)).to.contain(`(origin_not_allowed · ${requestId})`);
      expect(failure.message).not.to.contain(requestId);
      expect(statuses(element)).to.deep.equal(['failed']);
      await expect(element).to.be.accessible();
    });

    it('invalid_key', async () => {
      const p = await project();
      const element = await uploader({ endpoint: p.endpoint, publishableKey: 'pk_live_not-a-key' });
      const failed = next(element, 'upload-error');
      pick(element, [file('a.txt', 10, 'text/plain')]);
      const failure = await failed;
      expect([failure.code, failure.status]).to.deep.equal(['invalid_key', 401]);
      expect(failure.message).to.contain('The key was not recognized');
    });

    it('too_large: says the plan limit', async () => {
      const p = await project();
      const element = await uploader(p);
      const failed = next(element, 'upload-error');
      pick(element, [new File([new Uint8Array(100_000_001)], 'movie.mp4', { type: 'video/mp4' })]);
      const failure = await failed;
      expect([failure.code, failure.status, failure.step]).to.deep.equal([
        'too_large',
        413,
        'sign',
      ]);
      expect(failure.message).to.equal('This file is too large. The limit is 100 MB.');
      expect(failure.details).to.deep.equal({
        limit: 100_000_000,
        requestId: (failure.details as { requestId?: string }).requestId,
      });
      expect((failure.details as { requestId?: string }).requestId).to.match(/^[0-9a-f-]{36}$/);
      // The same bytes would be refused again: no Retry is offered, Remove is.
      await element.updateComplete;
      const actions = [...(element.shadowRoot?.querySelectorAll('.file .action') ?? [])];
      expect(actions.map((button) => button.textContent?.trim())).to.deep.equal(['Remove']);
    });

    it('rate_limited: says when it will try again, and does', async () => {
      const p = await project({ rateLimited: true });
      const element = await uploader(p);
      // Three requests a minute: sign and complete of the first file, sign of the second;
      // the third file's sign is refused.
      pick(element, [file('1.txt', 10, 'text/plain', 1)]);
      await next(element, 'upload-success');
      pick(element, [file('2.txt', 10, 'text/plain', 2)]);
      await waitUntil(
        () => element.files.some((f) => f.status === 'retrying'),
        'no retry scheduled',
        { timeout: 10_000 },
      );
      const retrying = element.files.find((f) => f.status === 'retrying');
      expect(retrying?.failure?.code).to.equal('rate_limited');
      expect(retrying?.failure?.retryAfter).to.be.within(1, 60);
      await element.updateComplete;
      expect(text(element)).to.match(
        /Too many requests in a short time\. Try again in \d+ seconds?\./,
      );
      expect(text(element)).to.match(/Trying again in \d+ s…/);
      await expect(element).to.be.accessible();
      element.cancelAll();
    });

    it('network loss in a multi-part upload: resumes and sends only the missing part', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      await network('drop', ' part 2\\]');
      const content = bytes(11 * MiB, 11);
      const success = next(element, 'upload-success', 60_000);
      pick(element, [new File([content], 'resume.bin')]);
      await waitUntil(
        () => element.files[0]?.failure?.code === 'network_error',
        'the dropped part never failed',
        // Part 2's retries (backoff from 1 s, doubled) come first, after 11 MiB is made.
        { timeout: 45_000 },
      );
      await element.updateComplete;
      expect(text(element)).to.contain('The connection was lost');
      await network('restore');
      const { record } = await success;
      expect(await sameBytes(publicUrlOf(record), content)).to.equal(true);
      const log = (await network('log')) as string[];
      const count = (n: number) =>
        log.filter(
          (line) => line.startsWith('PUT') && line.includes(`[upload ${record.id} part ${n}]`),
        ).length;
      // Parts 1 and 3 went once; part 2 failed (with retries) and went again after the resume.
      expect(count(1)).to.equal(1);
      expect(count(3)).to.equal(1);
      expect(count(2)).to.be.greaterThan(1);
      expect(
        log.some((line) => line.startsWith('GET') && line.includes(`/v1/uploads/${record.id}`)),
      ).to.equal(true);
    });

    it('offline, then online: carries on by itself', async () => {
      const p = await project();
      const element = await uploader(p);
      const success = next(element, 'upload-success', 60_000);
      const failures: string[] = [];
      element.addEventListener('upload-error', (event) => failures.push(event.detail.code));
      const offline = network('offline-for', undefined, 8000);
      // Picked once the page is offline (the command takes a moment to get there).
      await waitUntil(() => !navigator.onLine, 'the page went offline', LOADED);
      pick(element, [file('offline.txt', 100, 'text/plain')]);
      await offline;
      expect((await success).record.name).to.equal('offline.txt');
    });
  });

  describe('expired upload URLs', () => {
    it('signs a single-part upload again when its URL expired before the PUT', async () => {
      const p = await project({ shortLivedUrls: true });
      const element = await uploader(p);
      await network('log');
      await network('hold', ' part 1\\]', PAST_SHORT_URL_TTL_MS, true);
      const success = next(element, 'upload-success');
      pick(element, [file('late.txt', 100, 'text/plain')]);
      const { record } = await success;
      const log = ((await network('log')) as string[]).map((line) => line.replace(/\?.*$/, ''));
      expect(
        log.filter((line) => line === `PUT ${p.endpoint}/v1/parts [upload ${record.id} part 1]`),
      ).to.have.length(2);
      expect(log).to.include(`GET ${p.endpoint}/v1/uploads/${record.id}`);
    });

    it('signs the parts of a multi-part upload again when one expired mid-way', async () => {
      const p = await project({ shortLivedUrls: true });
      const element = await uploader(p);
      await network('hold', ' part 2\\]', PAST_SHORT_URL_TTL_MS, true);
      const content = bytes(11 * MiB, 5);
      const success = next(element, 'upload-success', 60_000);
      pick(element, [new File([content], 'late.bin')]);
      const { record } = await success;
      expect(await sameBytes(publicUrlOf(record), content)).to.equal(true);
    });
  });

  describe('bytes checked on the way (part checksums)', () => {
    it('sends a file of one part with its SHA-256, and sends it again when damaged on the way', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      // One byte flipped in flight, once: the store refuses it, it goes again.
      await network('flip', '\\[upload ', undefined, true);
      const content = bytes(5 * MiB, 8); // the most a file of one part can be
      const success = next(element, 'upload-success', 60_000);
      pick(element, [new File([content], 'checked.bin')]);
      const { record } = await success;
      expect(await sameBytes(publicUrlOf(record), content)).to.equal(true);
      const puts = ((await network('log')) as string[]).filter((line) => line.startsWith('PUT'));
      expect(puts.length, puts.join('\n')).to.equal(2);
    });

    it('does the same for a small file', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('flip', '\\[upload ', undefined, true);
      const content = bytes(300_000, 9);
      const success = next(element, 'upload-success', 30_000);
      pick(element, [new File([content], 'small-checked.bin')]);
      const { record } = await success;
      expect(await sameBytes(publicUrlOf(record), content)).to.equal(true);
    });

    it('by default checks every part of a big file: a damaged part alone goes again', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      await network('flip', ' part 2\\]', undefined, true);
      const content = bytes(11 * MiB, 10); // parts of 5, 5 and 1 MiB
      const success = next(element, 'upload-success', 60_000);
      pick(element, [new File([content], 'all-checked.bin')]);
      const { record } = await success;
      expect(await sameBytes(publicUrlOf(record), content)).to.equal(true);
      const puts = ((await network('log')) as string[])
        .filter((line) => line.startsWith('PUT'))
        .map((line) => line.replace(/^.*part (\d+)\]$/, '$1'))
        .sort();
      expect(puts).to.deep.equal(['1', '2', '2', '3']);
    });

    it('with checksum="small", checks files of one part only: damage to a big file\'s part is not caught', async () => {
      const p = await project();
      const element = await uploader(p, { checksum: 'small' });
      await network('log');
      await network('flip', ' part 2\\]', undefined, true);
      const content = bytes(11 * MiB, 12);
      const success = next(element, 'upload-success', 60_000);
      pick(element, [new File([content], 'small-only.bin')]);
      const { record } = await success;
      expect(await sameBytes(publicUrlOf(record), content)).to.equal(false);
      const puts = ((await network('log')) as string[]).filter((line) => line.startsWith('PUT'));
      expect(puts.length).to.equal(3);
    });

    it('with checksum="off", sends no digest: damage on the way is not caught', async () => {
      const p = await project();
      const element = await uploader(p, { checksum: 'off' });
      await network('log');
      await network('flip', '\\[upload ', undefined, true);
      const content = bytes(300_000, 11);
      const success = next(element, 'upload-success', 30_000);
      pick(element, [new File([content], 'unchecked.bin')]);
      const { record } = await success;
      // What the option gives up, shown: the flipped byte is what the CDN serves.
      expect(await sameBytes(publicUrlOf(record), content)).to.equal(false);
      const puts = ((await network('log')) as string[]).filter((line) => line.startsWith('PUT'));
      expect(puts.length).to.equal(1);
    });
  });

  describe('part URLs that a store refuses (S3 words a 403 its own way)', () => {
    it('asks for fresh URLs once after a 403 on a part, then goes on', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      await network('refuse', ' part 2\\]', undefined, true);
      const success = next(element, 'upload-success', 30_000);
      const content = bytes(11 * MiB, 6);
      pick(element, [new File([content], 'refused-once.bin')]);
      const { record } = await success;
      expect(await sameBytes(publicUrlOf(record), content)).to.equal(true);
      const log = ((await network('log')) as string[]).map((line) => line.replace(/\?.*$/, ''));
      expect(log).to.include(`GET ${p.endpoint}/v1/uploads/${record.id}`);
    });

    it('fails in words when the fresh URL is refused too', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('refuse', ' part 1\\]');
      const failed = next(element, 'upload-error', 30_000);
      pick(element, [file('refused.txt', 100, 'text/plain')]);
      const { status, step } = await failed;
      await network('restore');
      expect(status).to.equal(403);
      expect(step).to.equal('upload');
      await element.updateComplete;
      expect(element.files[0]?.status).to.equal('failed');
    });
  });

  describe('cancel and retry', () => {
    it('cancels one upload mid-way: it leaves the list and never succeeds', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('hold', '\\[upload ', HELD);
      let succeeded = 0;
      element.addEventListener('upload-success', () => succeeded++);
      pick(element, [file('slow.bin', OVER_BATCH), file('other.bin', OVER_BATCH, undefined, 2)]);
      // Mid-way: both PUTs left the page (held), not only shown as uploading (a row says so
      // once its file is signed, before XHRUpload sends it).
      await waitUntil(
        async () =>
          statuses(element).every((s) => s === 'uploading') && (await network('held')) === 2,
        'not uploading',
        LOADED,
      );
      await element.updateComplete;
      expect(element.hasAttribute('uploading')).to.equal(true);
      await expect(element).to.be.accessible();
      const cancel = labelled(element, 'Cancel uploading slow.bin');
      cancel.click();
      await element.updateComplete;
      expect(element.files.map((f) => f.name)).to.deep.equal(['other.bin']);
      await network('release');
      await next(element, 'upload-complete', 20_000);
      expect(succeeded).to.equal(1);
      expect(element.hasAttribute('uploading')).to.equal(false);
    });

    it('cancels all running uploads at once; a finished file stays', async () => {
      const p = await project();
      const element = await uploader(p);
      pick(element, [file('done.txt', 10, 'text/plain', 3)]);
      await next(element, 'upload-complete');
      await network('hold', '\\[upload ', HELD);
      let succeeded = 0;
      element.addEventListener('upload-success', () => succeeded++);
      pick(element, [file('a.bin', OVER_BATCH), file('b.bin', OVER_BATCH, undefined, 2)]);
      // Running: both PUTs on their way (held).
      await waitUntil(
        async () => element.uploading && (await network('held')) === 2,
        'not uploading',
        LOADED,
      );
      await element.updateComplete;
      [...(element.shadowRoot?.querySelectorAll<HTMLButtonElement>('.summary .action') ?? [])]
        .find((b) => b.textContent?.trim() === 'Cancel all')
        ?.click();
      await element.updateComplete;
      expect(element.files.map((f) => f.name)).to.deep.equal(['done.txt']);
      expect(element.uploading).to.equal(false);
      await network('release');
      await aTimeout(500);
      expect(succeeded).to.equal(0);
    });

    it('completes a file where it was signed, when the page changes endpoint and key mid-upload', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('hold', '\\[upload ', HELD);
      const success = next(element, 'upload-success', 20_000);
      pick(element, [file('moved.txt', 10, 'text/plain')]);
      // Its PUT left the page (held): a row says 'uploading' as its request is made.
      await waitUntil(
        async () => statuses(element)[0] === 'uploading' && (await network('held')) === 1,
        'not uploading',
        LOADED,
      );
      // While its bytes are held: another address and another key (neither would work).
      element.endpoint = 'http://127.0.0.1:9';
      element.apiKey = 'pk_live_elsewhere';
      await element.updateComplete;
      await network('release');
      expect((await success).record.name).to.equal('moved.txt');
    });

    it('retries a failed file when asked, once the cause is fixed', async () => {
      const p = await project();
      const element = await uploader({ endpoint: p.endpoint, publishableKey: 'pk_live_wrong' });
      const failed = next(element, 'upload-error');
      pick(element, [file('again.txt', 10, 'text/plain')]);
      await failed;
      await element.updateComplete;
      element.apiKey = p.publishableKey;
      await element.updateComplete;
      const retry = shadow(element, 'li .action');
      expect(retry.getAttribute('aria-label')).to.equal('Retry uploading again.txt');
      const success = next(element, 'upload-success');
      retry.click();
      expect((await success).record.name).to.equal('again.txt');
    });

    it('a file removed while its batched completion is on its way, then added again: that answer is not the new row’s', async () => {
      const p = await project();
      const element = await uploader(p);
      const reported: string[] = [];
      element.addEventListener('upload-success', (event) =>
        reported.push((event as CustomEvent<{ record: FileRecord }>).detail.record.name),
      );
      // Signed together (the first, batched, sign goes on); their completes are held, in one
      // batch call, or two when a loaded machine lands their PUTs in two windows; the sign
      // of the file added again is held too. What is held is counted from the page's own
      // requests, so the test waits for each request it means whichever way they went.
      await network('log');
      let completes = 0;
      let signs = 0;
      const allHeld = async () => {
        for (const line of (await network('log')) as string[]) {
          if (line.includes('/v1/uploads/complete')) completes++;
          else if (line.includes('/v1/uploads/sign')) signs++;
        }
        return (await network('held')) === completes + Math.max(0, signs - 1);
      };
      await network('hold', '/v1/uploads/complete$|/v1/uploads/sign$', HELD, false, 1);
      const again = file('again.bin', OVER_BATCH, undefined, 9);
      pick(element, [again, file('other.bin', OVER_BATCH, undefined, 8)]);
      await waitUntil(
        async () =>
          statuses(element).every((status) => status === 'finishing') &&
          (await allHeld()) &&
          completes > 0,
        'the complete not held',
        LOADED,
      );
      element.removeFile(element.files.find((f) => f.name === 'again.bin')?.id ?? '');
      // The same file again: the same id in Uppy, a new upload of its own.
      element.addFiles([again]);
      await waitUntil(async () => (await allHeld()) && signs === 2, 'its sign not held', LOADED);
      const done = next(element, 'upload-complete', 20_000);
      // The old answer lands first: the new row still has its PUT and complete to go.
      await network('release');
      const { successful } = await done;
      expect(successful.map((record) => record.name).sort()).to.deep.equal([
        'again.bin',
        'other.bin',
      ]);
      expect(reported.sort()).to.deep.equal(['again.bin', 'other.bin']);
      expect(statuses(element)).to.deep.equal(['done', 'done']);
    });
  });

  describe('pause and resume', () => {
    const puts = (log: string[]) =>
      log.filter((line) => line.startsWith('PUT') && line.includes('[upload '));
    const partOf = (line: string) => Number(/part (\d+)\]/.exec(line)?.[1]);

    it('pauses a multi-part file: the parts in flight stop, and resume sends only the rest', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      // 'answered' keeps this page's answers since its first 'log', earlier tests' too.
      const partOnesAnswered = async () =>
        ((await network('answered')) as string[]).filter(
          (line) => line.startsWith('PUT') && partOf(line) === 1,
        ).length;
      const partOnesBefore = await partOnesAnswered();
      // Parts 2 and 3 are held on their way; part 1 lands.
      await network('hold', 'part [23]\\]', 60_000);
      const content = bytes(12 * MiB + 5, 11);
      let completed = 0;
      element.addEventListener('upload-complete', () => completed++);
      pick(element, [new File([content], 'big.bin')]);
      await waitUntil(() => element.files[0]?.bytesUploaded === 5 * MiB, 'part 1 not sent', {
        timeout: 20_000,
      });
      // Its bytes sent is not yet a part the service holds: wait for the answer, or pausing
      // would cut part 1 off too (seen in CI on a loaded machine).
      await waitUntil(
        async () => (await partOnesAnswered()) === partOnesBefore + 1,
        'part 1 answered',
        { timeout: 20_000 },
      );
      await element.updateComplete;
      labelled(element, 'Pause uploading big.bin').click();
      await element.updateComplete;
      expect(statuses(element)).to.deep.equal(['paused']);
      expect(text(element)).to.contain('Paused');
      // What was sent stays counted.
      await aTimeout(300);
      expect(element.files[0]?.bytesUploaded).to.equal(5 * MiB);
      await network('restore');
      const before = (await network('log')) as string[];
      expect(puts(before).map(partOf).sort()).to.deep.equal([1, 2, 3]);
      // Paused holds: nothing more goes out, nothing completes, the form still waits.
      await aTimeout(1500);
      expect(puts((await network('log')) as string[])).to.deep.equal([]);
      expect(statuses(element)).to.deep.equal(['paused']);
      expect(completed).to.equal(0);
      expect(element.hasAttribute('uploading')).to.equal(true);
      await expect(element).to.be.accessible();

      const done = next(element, 'upload-complete', 30_000);
      const resume = labelled(element, 'Resume uploading big.bin');
      resume.focus();
      await sendKeys({ press: 'Enter' });
      const { successful } = await done;
      const after = (await network('log')) as string[];
      expect(puts(after).map(partOf).sort()).to.deep.equal([2, 3]);
      expect(await sameBytes(publicUrlOf(successful[0] as FileRecord), content)).to.equal(true);
    });

    it('pauses and resumes every file from the summary, while they are being signed', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('hold', '/v1/uploads/sign$', 60_000);
      let completed = 0;
      element.addEventListener('upload-complete', () => completed++);
      pick(element, [
        file('one.txt', OVER_BATCH, 'text/plain', 1),
        file('two.txt', OVER_BATCH + 1000, 'text/plain', 2),
      ]);
      await waitUntil(() => statuses(element).every((s) => s === 'preparing'), 'not signing', {
        timeout: 10_000,
      });
      await element.updateComplete;
      labelled(element, 'Pause all').click();
      await element.updateComplete;
      expect(statuses(element)).to.deep.equal(['paused', 'paused']);
      await network('restore');
      await aTimeout(500);
      expect(statuses(element)).to.deep.equal(['paused', 'paused']);
      expect(completed).to.equal(0);
      const done = next(element, 'upload-complete', 20_000);
      labelled(element, 'Resume all').click();
      const { successful, failed } = await done;
      expect(failed).to.deep.equal([]);
      expect(successful.map((record) => record.name).sort()).to.deep.equal(['one.txt', 'two.txt']);
      expect(
        await sameBytes(
          publicUrlOf(successful.find((r) => r.name === 'two.txt') as FileRecord),
          bytes(OVER_BATCH + 1000, 2),
        ),
      ).to.equal(true);
    });

    it('pauses one of files added together: the others carry on', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('hold', '/v1/uploads/sign$', HELD);
      pick(element, [
        file('stays.txt', OVER_BATCH, 'text/plain', 1),
        file('goes-1.txt', OVER_BATCH + 100, 'text/plain', 2),
        file('goes-2.txt', OVER_BATCH + 200, 'text/plain', 3),
      ]);
      await waitUntil(() => statuses(element).every((s) => s === 'preparing'), 'not signing', {
        timeout: 10_000,
      });
      const id = element.files.find((f) => f.name === 'stays.txt')?.id ?? '';
      element.pauseFile(id);
      await network('release');
      await waitUntil(
        () => element.files.filter((f) => f.status === 'done').length === 2,
        'the others did not finish',
        { timeout: 20_000 },
      );
      expect(element.files.find((f) => f.id === id)?.status).to.equal('paused');
      const done = next(element, 'upload-complete', 20_000);
      element.resumeFile(id);
      const { successful } = await done;
      expect(successful.map((r) => r.name).sort()).to.deep.equal([
        'goes-1.txt',
        'goes-2.txt',
        'stays.txt',
      ]);
    });

    it('lets a file of one part finish sending when paused, and completes it only on resume', async () => {
      const p = await project();
      const element = await uploader(p);
      await network('log');
      const answeredPuts = async () => puts((await network('answered')) as string[]).length;
      const putsBefore = await answeredPuts();
      await network('hold', '\\[upload ', HELD);
      pick(element, [file('small.bin', 5000, undefined, 5)]);
      // Its PUT on its way (a file shown uploading may not have sent it yet).
      await waitUntil(async () => (await network('held')) === 1, 'its PUT not held', LOADED);
      expect(statuses(element)).to.deep.equal(['uploading']);
      labelled(element, 'Pause uploading small.bin').click();
      await network('release');
      // Its bytes land while it is paused; a complete sent then would come right after.
      await waitUntil(
        async () => (await answeredPuts()) === putsBefore + 1,
        'the held PUT not answered',
        { timeout: 20_000 },
      );
      await aTimeout(1000);
      expect(statuses(element)).to.deep.equal(['paused']);
      const completes = (log: string[]) => log.filter((line) => /\/complete$/.test(line));
      const before = (await network('log')) as string[];
      expect(puts(before)).to.have.length(1);
      expect(completes(before)).to.deep.equal([]);
      const done = next(element, 'upload-success', 20_000);
      element.resumeFile(element.files[0]?.id ?? '');
      const { record } = await done;
      const after = (await network('log')) as string[];
      expect(puts(after)).to.deep.equal([]);
      expect(completes(after)).to.have.length(1);
      expect(await sameBytes(publicUrlOf(record), bytes(5000, 5))).to.equal(true);
    });
  });

  describe('in a form', () => {
    it('submits the uploaded files’ URLs (or ids), honours required, blocks while uploading, resets', async () => {
      const p = await project();
      const form = await fixture<HTMLFormElement>(html`
        <form>
          <file-uploader name="attachments" multiple required endpoint=${p.endpoint} api-key=${p.publishableKey}></file-uploader>
        </form>
      `);
      const element = form.querySelector('file-uploader') as FileUploaderElement;
      await element.updateComplete;
      expect(form.checkValidity()).to.equal(false);
      expect(element.validity?.valueMissing).to.equal(true);
      expect(element.validationMessage).to.equal('Please upload at least one file.');

      await network('hold', '\\[upload ', HELD);
      const done = next(element, 'upload-complete');
      pick(element, [
        file('a.txt', OVER_BATCH, 'text/plain', 1),
        file('b.txt', OVER_BATCH, 'text/plain', 2),
      ]);
      await waitUntil(() => element.uploading, 'not uploading', { timeout: 10_000 });
      await element.updateComplete;
      expect(form.checkValidity()).to.equal(false);
      expect(element.validationMessage).to.equal('Please wait until the uploads have finished.');
      await network('release');
      const { successful } = await done;
      await element.updateComplete;
      expect(form.checkValidity()).to.equal(true);
      const urls = new FormData(form).getAll('attachments');
      expect([...urls].sort()).to.deep.equal(successful.map((r) => r.url).sort());

      element.formValue = 'id';
      await element.updateComplete;
      expect([...new FormData(form).getAll('attachments')].sort()).to.deep.equal(
        successful.map((r) => r.id).sort(),
      );

      form.reset();
      await element.updateComplete;
      expect(element.files).to.have.length(0);
      expect(new FormData(form).getAll('attachments')).to.deep.equal([]);
      expect(form.checkValidity()).to.equal(false);
    });
  });

  describe('looks and words', () => {
    it('is accessible when empty, and announces results in a live region', async () => {
      const p = await project();
      const element = await uploader(p);
      await expect(element).to.be.accessible();
      const live = shadow(element, '[role=status]');
      expect(live.getAttribute('aria-live')).to.equal('polite');
      const done = next(element, 'upload-complete');
      pick(element, [file('x.txt', 10, 'text/plain')]);
      await done;
      // At most one announcement a second: the last one may wait for its turn.
      await waitUntil(
        () => live.textContent?.trim().endsWith('All uploads finished: 1 uploaded.'),
        'the live region did not announce the end',
        { timeout: 3000 },
      );
    });

    it('takes replacement texts and formats numbers for the page’s language', async () => {
      const p = await project();
      const element = await fixture<FileUploaderElement>(html`
        <div lang="de">
          <file-uploader endpoint=${p.endpoint} api-key=${p.publishableKey} max-file-size="1500000"
            .strings=${{ browse: 'Dateien auswählen', hintMaxSize: (size: string) => `Höchstens ${size}.` }}></file-uploader>
        </div>
      `).then((div) => div.querySelector('file-uploader') as FileUploaderElement);
      await element.updateComplete;
      expect(shadow(element, '.browse').textContent?.trim()).to.equal('Dateien auswählen');
      expect(shadow(element, '.hint').textContent).to.contain('Höchstens 1,5 MB.');
    });
  });
});
