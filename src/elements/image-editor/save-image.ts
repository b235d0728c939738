import { cropOf, imageBounds, type Matrix, type Rect, type Size } from './geometry.js';

/**
 * Saving an edit: the original decoded upright (its EXIF orientation applied, as the editor
 * showed it), drawn turned, flipped and cropped at its own resolution, and encoded in its
 * own type: JPEG and WebP at the page's `image-quality`, PNG losslessly. Nothing of the
 * original's metadata is carried (a canvas writes pixels only). A type the browser cannot
 * write (AVIF, GIF; WebP in Safari) is written as PNG, named so.
 */

export interface SavedImage {
  file: File;
  /** The edited image's pixels kept, as `image-edit` reports them. */
  crop: Rect;
}

export async function saveEdit(
  original: File,
  view: { matrix: Matrix; natural: Size; box: Rect; aspect: number | null },
  quality: number,
): Promise<SavedImage> {
  const crop = cropOf(view.box, view.matrix, view.natural, view.aspect);
  const bitmap = await createImageBitmap(original, { imageOrientation: 'from-image' });
  try {
    const canvas = new OffscreenCanvas(crop.width, crop.height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('No 2D canvas in this browser.');
    const [a, b, c, d, e, f] = view.matrix;
    const scale = Math.hypot(a, b);
    const bounds = imageBounds(view.matrix, view.natural);
    const { width, height } = view.natural;
    // From the canvas's pixels to the saved image's: the crop's corner at 0, 0, and the
    // image at its own resolution (the editor showed it `scale` times its size)...
    context.scale(1 / scale, 1 / scale);
    context.translate(-(bounds.x + crop.x * scale), -(bounds.y + crop.y * scale));
    // ...and cropper-image's matrix, which turns the image about its center.
    context.translate(width / 2 + e, height / 2 + f);
    context.transform(a, b, c, d, 0, 0);
    context.imageSmoothingQuality = 'high';
    context.drawImage(bitmap, -width / 2, -height / 2, width, height);
    const type = original.type === 'image/png' ? 'image/png' : original.type;
    const blob = await canvas.convertToBlob({ type, quality });
    return {
      file: new File([blob], nameFor(original.name, blob.type, original.type), { type: blob.type }),
      crop,
    };
  } finally {
    bitmap.close();
  }
}

/** The same name; only a type the browser could not write changes its extension. */
function nameFor(name: string, written: string, asked: string): string {
  if (written === asked) return name;
  const extension = written.split('/')[1] ?? 'png';
  return `${name.replace(/\.[^.]*$/, '')}.${extension}`;
}
