import { crc32 } from 'node:zlib';
import sharp from 'sharp';

/** Test images, made by sharp itself: no image bytes are written by hand. */

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

export const RED: Rgb = { r: 255, g: 0, b: 0 };
export const BLUE: Rgb = { r: 0, g: 0, b: 255 };

function plane(width: number, height: number, background: Rgb) {
  return sharp({ create: { width, height, channels: 3, background } });
}

/**
 * A JPEG stored 300 x 200 (left half red, right half blue) with EXIF orientation 6 (shown
 * turned a quarter clockwise: 200 x 300, red on top), a camera make and a GPS position.
 */
export async function orientedJpeg(): Promise<Buffer> {
  const right = await plane(150, 200, BLUE).png().toBuffer();
  return plane(300, 200, RED)
    .composite([{ input: right, left: 150, top: 0 }])
    .withExif({
      IFD0: { Make: 'TestCam' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 30/1' },
    })
    .withMetadata({ orientation: 6 })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** The GPS IFD pointer tag (0x8825) as a little-endian TIFF writes it. */
export const GPS_TAG = Buffer.from([0x25, 0x88]);

export function solidImage(
  format: 'png' | 'webp' | 'jpeg' | 'tiff',
  width: number,
  height: number,
  color: Rgb = RED,
): Promise<Buffer> {
  return plane(width, height, color).toFormat(format).toBuffer();
}

/** An animated GIF of two 40 x 30 frames: red, then blue. */
export async function twoFrameGif(): Promise<Buffer> {
  const frame = (color: Rgb) => plane(40, 30, color).png().toBuffer();
  return sharp([await frame(RED), await frame(BLUE)], { join: { animated: true } })
    .gif()
    .toBuffer();
}

/** A photo-like JPEG (noise, so it does not compress to nothing) of `width` x `height`. */
export function noiseJpeg(width: number, height: number, quality = 85): Promise<Buffer> {
  return sharp({
    create: {
      width,
      height,
      channels: 3,
      background: RED,
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .jpeg({ quality })
    .toBuffer();
}

/**
 * A decompression bomb: a real 1 x 1 PNG whose header is rewritten to claim `size` x `size`
 * pixels (CRC fixed, so the header itself is valid).
 */
export async function bombPng(size = 100_000): Promise<Buffer> {
  const png = Buffer.from(await plane(1, 1, RED).png().toBuffer());
  // Signature (8), then the IHDR chunk: length (4), type (4), width (4), height (4), …, CRC.
  png.writeUInt32BE(size, 16);
  png.writeUInt32BE(size, 20);
  const ihdr = png.subarray(12, 12 + 4 + 13);
  png.writeUInt32BE(crc32(ihdr), 12 + 4 + 13);
  return png;
}

/** The decoded pixel at (x, y), as RGB. */
export async function pixelAt(image: Buffer | ArrayBuffer, x: number, y: number): Promise<Rgb> {
  const { data, info } = await sharp(Buffer.from(image as ArrayBuffer))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return { r: data[at] as number, g: data[at + 1] as number, b: data[at + 2] as number };
}

/** Whether two colours are the same within JPEG's loss. */
export function near(actual: Rgb, expected: Rgb, tolerance = 40): boolean {
  return (
    Math.abs(actual.r - expected.r) <= tolerance &&
    Math.abs(actual.g - expected.g) <= tolerance &&
    Math.abs(actual.b - expected.b) <= tolerance
  );
}
