import { rgbaToThumbHash } from 'thumbhash';
import { headerOf, openImage } from '../variants/variant-encoder.js';
import { sourceFormat } from '../variants/variant-key.js';

/** ThumbHash encodes images of at most this many pixels a side. */
const THUMBHASH_MAX_SIDE = 100;

/** Whether a file of this stored type may have a placeholder: an image the CDN decodes. */
export function hasPlaceholder(mime: string): boolean {
  return sourceFormat(mime) !== null;
}

/**
 * An image's placeholder (decisions.md, "Placeholders"): its ThumbHash, in standard base64,
 * from the file at `path` decoded at most 100 px a side with its EXIF orientation applied.
 * libvips shrinks a JPEG (and WebP) while it decodes it, so a 12 MP photo costs a decode of
 * an eighth of its sides, not of all its pixels.
 *
 * Null for a type that is not an image the CDN decodes (SVG is never rasterised), and for a
 * file that does not decode as the type recognised from its bytes, or is larger than the
 * CDN would transform: a file without a placeholder is still a file, so this never throws.
 */
export async function placeholderOf(path: string, mime: string): Promise<string | null> {
  const format = sourceFormat(mime);
  if (format === null) return null;
  try {
    // A truncated image gets no placeholder rather than one half grey (`openImage` fails it).
    const image = await openImage(path);
    // The header must say the recognised type, as for a variant: the decoder is that type's.
    headerOf(await image.metadata(), format);
    const { data, info } = await image
      .rotate()
      .resize(THUMBHASH_MAX_SIDE, THUMBHASH_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
      // Grey, CMYK and 16-bit images alike become 8-bit sRGB with alpha: what ThumbHash reads.
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) return null;
    return Buffer.from(rgbaToThumbHash(info.width, info.height, data)).toString('base64');
  } catch {
    return null;
  }
}
