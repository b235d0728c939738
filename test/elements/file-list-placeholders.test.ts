import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import '../../src/index.js';
import { FilehostClient } from '../../src/client/client.js';
import type { FileListElement } from '../../src/elements/file-list/file-list.js';
import { HELD, network, project } from './helpers.js';

type Project = Awaited<ReturnType<typeof project>>;

/** The CDN's thumbnail requests of pictures with a placeholder (the variant inside the box). */
const THUMBNAILS = 'fit=inside';

/** An image of one colour, `width` x `height`, encoded by the browser. */
async function solid(width: number, height: number, color: string, type: string): Promise<Blob> {
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
  context.fillStyle = color;
  context.fillRect(0, 0, width, height);
  return canvas.convertToBlob({ type, quality: 0.9 });
}

async function seed(p: Project): Promise<void> {
  const client = new FilehostClient({ endpoint: p.endpoint, apiKey: p.publishableKey });
  await client.upload(new Blob(['just words'], { type: 'text/plain' }), { name: 'notes.txt' });
  await client.upload(await solid(300, 150, 'rgb(230, 120, 30)', 'image/jpeg'), {
    name: 'wide.jpg',
  });
  await client.upload(await solid(100, 200, 'rgb(20, 150, 140)', 'image/png'), {
    name: 'tall.png',
  });
}

function row(element: FileListElement, name: string): HTMLElement {
  const found = [...(element.shadowRoot?.querySelectorAll<HTMLElement>('.item') ?? [])].find(
    (item) => item.querySelector('.name')?.getAttribute('title') === name,
  );
  if (!found) throw new Error(`no row for ${name}`);
  return found;
}

/** The picture (placeholder frame) of a row, once drawn. */
function picture(element: FileListElement, name: string): HTMLElement | null {
  return row(element, name).querySelector<HTMLElement>('.picture');
}

/** The average colour of the placeholder a frame draws, decoded by the browser. */
async function drawnColour(frame: HTMLElement): Promise<[number, number, number]> {
  const url = /url\("?(data:image\/png;base64,[^")]+)"?\)/.exec(frame.style.backgroundImage)?.[1];
  expect(url, 'the frame draws a PNG placeholder').to.be.a('string');
  const bitmap = await createImageBitmap(await (await fetch(url as string)).blob());
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
  context.drawImage(bitmap, 0, 0);
  const { data } = context.getImageData(0, 0, bitmap.width, bitmap.height);
  const sum = [0, 0, 0];
  for (let at = 0; at < data.length; at += 4) {
    for (const channel of [0, 1, 2]) sum[channel] = (sum[channel] ?? 0) + (data[at + channel] ?? 0);
  }
  const pixels = data.length / 4;
  return sum.map((value) => value / pixels) as [number, number, number];
}

function near(actual: number[], expected: number[], tolerance = 24): boolean {
  return actual.every((value, index) => Math.abs(value - (expected[index] ?? 0)) <= tolerance);
}

function box(element: Element): { width: number; height: number; top: number; left: number } {
  const { width, height, top, left } = element.getBoundingClientRect();
  return { width, height, top, left };
}

async function list(p: Project): Promise<FileListElement> {
  const element = await fixture<FileListElement>(
    html`<file-list endpoint=${p.endpoint} api-key=${p.publishableKey}></file-list>`,
  );
  await element.pageLoaded;
  await waitUntil(() => picture(element, 'wide.jpg') && picture(element, 'tall.png'), 'drawn', {
    timeout: 10_000,
  });
  return element;
}

describe('<file-list> placeholders', () => {
  afterEach(() => network('restore'));

  it('draws each image placeholder in its shape and colours before any thumbnail, then the thumbnail over it, nothing moving', async () => {
    const p = await project();
    await seed(p);
    // Every thumbnail is held back until released: what shows first is drawn from the list alone.
    await network('hold', THUMBNAILS, HELD);
    const element = await list(p);
    const wide = picture(element, 'wide.jpg') as HTMLElement;
    const tall = picture(element, 'tall.png') as HTMLElement;
    for (const [frame, aspect, colour] of [
      [wide, 2, [230, 120, 30]],
      [tall, 0.5, [20, 150, 140]],
    ] as const) {
      const shown = box(frame);
      // ThumbHash keeps the shape within about 15%; the frame fits the 40 px box.
      expect(Math.abs(Math.log(shown.width / shown.height / aspect))).to.be.below(Math.log(1.2));
      expect(Math.max(shown.width, shown.height)).to.be.within(39, 41);
      expect(near(await drawnColour(frame), [...colour]), 'its colour').to.equal(true);
      const img = frame.querySelector('img') as HTMLImageElement;
      expect(img.complete && img.naturalWidth > 0, 'the thumbnail is held back').to.equal(false);
      expect(new URL(img.src).searchParams.get('fit')).to.equal('inside');
    }
    // A file that is not an image keeps its icon, and has no frame.
    expect(row(element, 'notes.txt').querySelector('.picture')).to.equal(null);
    expect(row(element, 'notes.txt').querySelector('svg')).to.not.equal(null);

    const before = [wide, tall].map(box);
    const rowsBefore = ['wide.jpg', 'tall.png', 'notes.txt'].map((name) => box(row(element, name)));
    // Then the thumbnails arrive, each over its placeholder.
    const images = [wide, tall].map((frame) => frame.querySelector('img') as HTMLImageElement);
    await network('release');
    await waitUntil(() => images.every((img) => img.complete && img.naturalWidth > 0), 'loaded', {
      timeout: 30_000,
    });
    for (const [index, frame] of [wide, tall].entries()) {
      expect(box(frame)).to.deep.equal(before[index], 'the thumbnail takes the frame as it was');
      const img = images[index] as HTMLImageElement;
      expect(box(img)).to.deep.equal(box(frame), 'the thumbnail covers the placeholder');
      expect(img.hidden).to.equal(false);
    }
    expect(
      ['wide.jpg', 'tall.png', 'notes.txt'].map((name) => box(row(element, name))),
    ).to.deep.equal(rowsBefore);
  });

  it('keeps the placeholder where a thumbnail fails', async () => {
    const p = await project();
    await seed(p);
    await network('drop', THUMBNAILS);
    const element = await list(p);
    const frame = picture(element, 'wide.jpg') as HTMLElement;
    const img = frame.querySelector('img') as HTMLImageElement;
    await waitUntil(() => img.hidden, 'the failed thumbnail steps aside', { timeout: 10_000 });
    expect(near(await drawnColour(frame), [230, 120, 30])).to.equal(true);
    expect(box(frame).width).to.be.within(39, 41);
  });
});
