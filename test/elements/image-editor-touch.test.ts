import { expect, waitUntil } from '@open-wc/testing';
import { button, jpeg, openedEditor, UPLOAD_EVENT_MS, uploader } from './editor-helpers.js';
import { device, LOADED, next, pick, type TouchStep } from './helpers.js';

/**
 * The image editor under a finger (#57): real touches from Chromium's own touch input (a
 * DevTools protocol command: Chromium only, so not among the cross-browser files), which
 * Cropper.js receives as pointer events of type `touch`, as from a phone.
 */
describe('<file-uploader image-editor> by touch', () => {
  it('touch: a finger drags the crop box, two fingers pinch to zoom the image', async () => {
    const element = await uploader({ 'crop-aspect': '1:1' });
    const edits: { crop: { x: number; width: number } }[] = [];
    element.addEventListener('image-edit', (event) => edits.push(event.detail));
    const success = next(element, 'upload-success', UPLOAD_EVENT_MS);
    pick(element, [await jpeg('touched.jpg', 600, 300)]);
    const dialog = await openedEditor(element);
    const selection = dialog.querySelector('cropper-selection') as HTMLElement & { x: number };
    const image = dialog.querySelector('cropper-image') as HTMLElement & {
      $getTransform(): number[];
    };
    // The square fills the image's height, centered: drag it left with one finger.
    const box = selection.getBoundingClientRect();
    const startX = selection.x;
    const cx = box.left + box.width / 2;
    const cy = box.top + box.height / 2;
    const drag: TouchStep[] = [{ type: 'touchStart', points: [{ x: cx, y: cy }] }];
    for (let step = 1; step <= 6; step++)
      drag.push({ type: 'touchMove', points: [{ x: cx - step * 10, y: cy }] });
    drag.push({ type: 'touchEnd', points: [] });
    await device({ action: 'touches', steps: drag });
    await waitUntil(() => selection.x < startX - 20, 'the finger moved the crop box', LOADED);
    // Two fingers moving apart over the image zoom it in.
    const scale = image.$getTransform()[0] ?? 0;
    const pinch: TouchStep[] = [
      {
        type: 'touchStart',
        points: [
          { x: cx - 20, y: cy },
          { x: cx + 20, y: cy },
        ],
      },
    ];
    for (let step = 1; step <= 6; step++)
      pinch.push({
        type: 'touchMove',
        points: [
          { x: cx - 20 - step * 8, y: cy },
          { x: cx + 20 + step * 8, y: cy },
        ],
      });
    pinch.push({ type: 'touchEnd', points: [] });
    await device({ action: 'touches', steps: pinch });
    await waitUntil(
      () => (image.$getTransform()[0] ?? 0) > scale * 1.1,
      'the pinch zoomed in',
      LOADED,
    );
    // What is saved follows: a square, moved off the center, smaller in the image's pixels
    // than its full height now that the image is zoomed in.
    button(dialog, 'Save').click();
    await success;
    const crop = edits[0]?.crop as { x: number; y: number; width: number; height: number };
    expect(crop.width).to.equal(crop.height);
    expect(crop.width).to.be.lessThan(300);
    expect(crop.x + crop.width / 2).to.be.lessThan(300);
  });
});
