import type { Page } from 'playwright-core';

/**
 * Waits until the image editor open in the `<file-uploader>` with id `uploaderId` has placed
 * its crop box (Cropper.js's selection has a size): before that, keys and clicks meet a box
 * that is not there yet.
 */
export async function untilCropBoxPlaced(page: Page, uploaderId: string): Promise<void> {
  await page.waitForFunction(
    (id) =>
      (
        document.getElementById(id)?.shadowRoot?.querySelector('cropper-selection') as unknown as {
          width: number;
        }
      )?.width > 0,
    uploaderId,
  );
}
