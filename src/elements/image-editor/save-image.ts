import { cropOf, imageBounds, type Matrix, type Rect, type Size } from './geometry.js';

/**
 * The pixels of an edit. The original is decoded once, upright (its EXIF orientation
 * applied), when the editor opens; the editor shows a smaller copy of it (`previewOf`),
 * and Save draws the original itself turned, flipped and cropped at its own resolution,
 * and encodes it in its own type: JPEG and WebP at the page's `image-quality`, PNG
 * losslessly. Nothing of the original's metadata is carried (a canvas writes pixels only).
 * A type the browser cannot write (AVIF, GIF; WebP in Safari) is written as PNG, named so.
 */

export interface SavedImage {
  file: File;
  /** The edited image's pixels kept, as `image-edit` reports them. */
  crop: Rect;
}

/** The longest side the editor shows: larger originals are shown from a smaller copy. */
const PREVIEW_SIDE = 1600;

/**
 * What the editor shows of `original` (decoded as `bitmap`): the file itself when it is
 * small enough, else a copy at most `PREVIEW_SIDE` pixels long (drawing a 12-megapixel
 * image on every move of the crop box is what would make the editor slow).
 */
export async function previewOf(original: File, bitmap: ImageBitmap): Promise<string> {
  const scale = PREVIEW_SIDE / Math.max(bitmap.width, bitmap.height);
  if (scale >= 1) return URL.createObjectURL(original);
  const width = Math.max(1, Math.round(bitmap.width * scale));
  const height = Math.max(1, Math.round(bitmap.height * scale));
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('No 2D canvas in this browser.');
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, 0, 0, width, height);
  // JPEG is the quickest to write (a tenth of WebP's time); an image that may have
  // transparency keeps it in WebP (a browser that cannot write WebP writes PNG).
  const type = original.type === 'image/jpeg' ? 'image/jpeg' : 'image/webp';
  return URL.createObjectURL(await canvas.convertToBlob({ type, quality: 0.9 }));
}

export async function saveEdit(
  original: File,
  bitmap: ImageBitmap,
  /** The editor's view: `natural` is the size of what it shows (the preview's). */
  view: { matrix: Matrix; natural: Size; box: Rect; aspect: number | null },
  quality: number,
): Promise<SavedImage> {
  // From the preview's pixels to the original's.
  const ratio = bitmap.width / view.natural.width;
  const full = { width: bitmap.width, height: bitmap.height };
  const [a, b, c, d, e, f] = view.matrix;
  const scale = Math.hypot(a, b) / ratio;
  // The same matrix about the original's center, at the original's size.
  const matrix: Matrix = [
    a / ratio,
    b / ratio,
    c / ratio,
    d / ratio,
    e + (view.natural.width - full.width) / 2,
    f + (view.natural.height - full.height) / 2,
  ];
  const crop = cropOf(view.box, matrix, full, view.aspect);
  const canvas = new OffscreenCanvas(crop.width, crop.height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('No 2D canvas in this browser.');
  const bounds = imageBounds(matrix, full);
  // From the canvas's pixels to the saved image's: the crop's corner at 0, 0, and the
  // image at its own resolution (the editor showed it `scale` times its size)...
  context.scale(1 / scale, 1 / scale);
  context.translate(-(bounds.x + crop.x * scale), -(bounds.y + crop.y * scale));
  // ...and cropper-image's matrix, which turns the image about its center.
  context.translate(full.width / 2 + matrix[4], full.height / 2 + matrix[5]);
  context.transform(matrix[0], matrix[1], matrix[2], matrix[3], 0, 0);
  // At its own resolution, turned by quarter turns: each pixel lands on a pixel, and
  // smoothing would only cost time (a 12-megapixel photo's draw took seconds with it).
  context.imageSmoothingEnabled = false;
  context.drawImage(bitmap, -full.width / 2, -full.height / 2);
  const blob = await canvas.convertToBlob({ type: original.type, quality });
  return {
    file: new File([blob], nameFor(original.name, blob.type, original.type), { type: blob.type }),
    crop,
  };
}

/** The same name; only a type the browser could not write changes its extension. */
function nameFor(name: string, written: string, asked: string): string {
  if (written === asked) return name;
  const extension = written.split('/')[1] ?? 'png';
  return `${name.replace(/\.[^.]*$/, '')}.${extension}`;
}
