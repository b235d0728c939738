/**
 * `npm run bench:editor`: a 12-megapixel JPEG edited and saved in Chromium (#57) as
 * `<file-uploader image-editor>` does it: the editor opened on it (the image decoded and
 * shown by Cropper.js), a quarter turn, Save (decoded upright again, turned, cropped and
 * encoded as JPEG at 0.85), until `image-edit` fires; beside decoding and encoding the same
 * image with a plain canvas on the page (`createImageBitmap`, `drawImage`, `convertToBlob`),
 * in the same run, alternating. The goal: under a second. BENCH_RUNS (default 5).
 */
import { chromium, type Page } from 'playwright-core';
import { servePage } from '../helpers/page-server.js';
import { CHROMIUM_ARGS, chromiumPath } from '../helpers/wtr-plugins.js';
import { makePhoto } from './photo.js';
import { median, reportRows } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const WIDTH = 4000;
const HEIGHT = 3000;

/** Seconds to edit and save through the element, or to decode and encode with a canvas. */
async function measure(page: Page, way: 'editor' | 'canvas'): Promise<number> {
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
  return page.evaluate(async (way) => {
    const photo = (window as unknown as { photo: File }).photo;
    const started = performance.now();
    if (way === 'canvas') {
      const bitmap = await createImageBitmap(photo, { imageOrientation: 'from-image' });
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
      bitmap.close();
      await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.85 });
    } else {
      const element = document.querySelector('file-uploader') as HTMLElement & {
        editImage(file: File): void;
      };
      const edited = new Promise((resolve) =>
        element.addEventListener('image-edit', resolve, { once: true }),
      );
      element.editImage(photo);
      const root = element.shadowRoot as ShadowRoot;
      // Open and shown: the crop box is placed once the image is decoded.
      await new Promise<void>((resolve) => {
        const check = () => {
          const box = root.querySelector('cropper-selection') as unknown as { width: number };
          if (box?.width > 0) resolve();
          else requestAnimationFrame(check);
        };
        check();
      });
      const shown = performance.now();
      const buttons = [...root.querySelectorAll('dialog button')] as HTMLButtonElement[];
      buttons.find((b) => b.textContent?.trim() === 'Rotate right')?.click();
      buttons.find((b) => b.textContent?.trim() === 'Save')?.click();
      await edited;
      (window as unknown as { phases: number[] }).phases = [
        shown - started,
        performance.now() - shown,
      ];
    }
    return (performance.now() - started) / 1000;
  }, way);
}

async function main(): Promise<void> {
  const served = await servePage(
    // No endpoint: the saved image is refused for want of one; only the edit is measured.
    '<!doctype html><script type="module" src="/bundle.js"></script><file-uploader image-editor multiple></file-uploader>',
  );
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // tsx names the functions it compiles with a helper the page does not have.
    await page.addInitScript({ content: 'globalThis.__name = (target) => target;' });
    await page.goto(served.origin);
    await page.waitForFunction(() => customElements.get('file-uploader'));
    const bytes = await makePhoto(page, WIDTH, HEIGHT);
    console.log(`A ${WIDTH} x ${HEIGHT} JPEG of ${(bytes / 1024 / 1024).toFixed(1)} MiB`);
    // One of each first, not counted: the editor's code is fetched, the codecs warm up.
    await measure(page, 'editor');
    await measure(page, 'canvas');
    const runs: Record<'editor' | 'canvas', number[]> = { editor: [], canvas: [] };
    for (let run = 0; run < RUNS; run++) {
      for (const way of run % 2 === 0
        ? (['editor', 'canvas'] as const)
        : (['canvas', 'editor'] as const)) {
        const seconds = await measure(page, way);
        runs[way].push(seconds);
        const phases =
          way === 'editor'
            ? await page.evaluate(() => (window as unknown as { phases: number[] }).phases)
            : [];
        console.log(
          `run ${run + 1} ${way.padEnd(6)} ${seconds.toFixed(2)} s${phases.length ? ` (open ${(phases[0] ?? 0).toFixed(0)} ms, turn and save ${(phases[1] ?? 0).toFixed(0)} ms)` : ''}`,
        );
      }
    }
    const editor = median(runs.editor);
    const canvas = median(runs.canvas);
    console.log(
      `median: edit and save ${editor.toFixed(2)} s, plain canvas ${canvas.toFixed(2)} s (${(editor / canvas).toFixed(2)}x)`,
    );
    await reportRows([
      {
        comparison: 'editing an image before upload',
        measure: '12 MP JPEG opened, turned, saved, seconds',
        filehost: editor,
        peer: { name: 'decoded and encoded with a plain canvas', value: canvas },
        // The goal is the editor's own time (a second), whatever the plain canvas takes.
        goal: { op: '<=', target: 1, absolute: true },
        runs: RUNS,
      },
    ]);
  } finally {
    await browser.close();
    await served.close();
  }
}

await main();
