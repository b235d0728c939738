import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import exifr from 'exifr';
import sharp, { type Sharp } from 'sharp';
import { ensureDebianPackages, unavailable } from './debian-packages.js';

const run = promisify(execFile);

/**
 * Photos as a phone leaves them (a position, a camera, an author, XMP and IPTC beside the
 * pixels), made by real tools: sharp encodes JPEG, PNG, WebP and TIFF; libheif's `heif-enc`
 * (Debian's `libheif-examples`, x265 inside) encodes HEIC, which sharp's prebuilt libvips
 * cannot; Debian's ExifTool (`libimage-exiftool-perl`) writes the metadata and, with
 * `exifr` (another implementation), reads it back.
 */
export const PHOTO_FORMATS = ['jpeg', 'png', 'webp', 'tiff', 'heic'] as const;
export type PhotoFormat = (typeof PHOTO_FORMATS)[number];

export const PHOTO_MIME: Record<PhotoFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  tiff: 'image/tiff',
  heic: 'image/heic',
};

const EXT: Record<PhotoFormat, string> = {
  jpeg: 'jpg',
  png: 'png',
  webp: 'webp',
  tiff: 'tif',
  heic: 'heic',
};

export const EXIFTOOL = '/usr/bin/exiftool';
const HEIF_ENC = '/usr/bin/heif-enc';
const HEIF_CONVERT = '/usr/bin/heif-convert';

/** Installs the tools where it can; null when they are there, else why to skip. */
export function photoToolsAvailable(): { skip: string } | null {
  const ready = () => [EXIFTOOL, HEIF_ENC, HEIF_CONVERT].every((path) => existsSync(path));
  if (ensureDebianPackages(['libimage-exiftool-perl', 'libheif-examples'], ready)) return null;
  return unavailable(
    'ExifTool and libheif tools',
    'apt-get install -y libimage-exiftool-perl libheif-examples',
  );
}

/** Where a photo was taken, as the fixtures record it. */
export const PARIS = { latitude: 48.8566, longitude: 2.3522 };

export async function inTemp<T>(task: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-photo-'));
  try {
    return await task(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** 96 x 64 pixels with detail in every channel (no flat areas an encoder could smooth). */
export function pixels(): Sharp {
  const width = 96;
  const height = 64;
  const raw = Buffer.alloc(width * height * 3);
  for (let index = 0; index < raw.length; index++)
    raw[index] = (index * 37 + (index >> 7) * 11) & 255;
  return sharp(raw, { raw: { width, height, channels: 3 } });
}

/**
 * A photo of `format` with GPS (EXIF and XMP), EXIF orientation 6 where the format has an
 * EXIF orientation, an artist (EXIF), a creator (XMP) and a city (IPTC, where the format
 * takes IPTC).
 */
export async function phonePhoto(format: PhotoFormat): Promise<Buffer> {
  return inTemp(async (dir) => {
    const file = join(dir, `photo.${EXT[format]}`);
    const image = pixels();
    if (format === 'heic') {
      const png = join(dir, 'pixels.png');
      await image.png().toFile(png);
      await run(HEIF_ENC, ['-L', '-o', file, png]);
    } else if (format === 'jpeg') {
      await image.jpeg({ quality: 95 }).withIccProfile('srgb').toFile(file);
    } else if (format === 'png') {
      await image.png().withIccProfile('srgb').toFile(file);
    } else if (format === 'webp') {
      await image.webp({ lossless: true }).toFile(file);
    } else {
      await image.tiff({ compression: 'lzw' }).toFile(file);
    }
    await run(EXIFTOOL, [
      '-m',
      '-overwrite_original',
      `-GPSLatitude=${PARIS.latitude}`,
      '-GPSLatitudeRef=N',
      `-GPSLongitude=${PARIS.longitude}`,
      '-GPSLongitudeRef=E',
      '-GPSAltitude=35',
      `-XMP-exif:GPSLatitude=${PARIS.latitude}`,
      `-XMP-exif:GPSLongitude=${PARIS.longitude}`,
      '-EXIF:Artist=Ada Lovelace',
      '-EXIF:Make=TestCam',
      '-XMP-dc:Creator=Ada Lovelace',
      ...(format === 'jpeg' || format === 'tiff' ? ['-IPTC:City=Paris'] : []),
      ...(format === 'jpeg' ? ['-EXIF:Orientation#=6'] : []),
      file,
    ]);
    return readFile(file);
  });
}

/** Every tag Debian's ExifTool reads in `bytes`, as `Group:Name` → value. */
export async function exiftoolTags(bytes: Uint8Array): Promise<Record<string, unknown>> {
  return inTemp(async (dir) => {
    const file = join(dir, 'file');
    await writeFile(file, bytes);
    const { stdout } = await run(EXIFTOOL, ['-j', '-G1', '-a', '-n', '-struct', file], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const [tags] = JSON.parse(stdout) as Record<string, unknown>[];
    return tags ?? {};
  });
}

/**
 * Every trace of a location two independent readers find: tags named like GPS or
 * `*Location*GPS*` by ExifTool (EXIF, XMP, QuickTime/HEIF items, maker notes), and the
 * position `exifr` (a JavaScript reader of its own) finds.
 */
export async function locationTraces(bytes: Uint8Array): Promise<string[]> {
  const tags = await exiftoolTags(bytes);
  const traces = Object.keys(tags).filter(
    (name) => /gps/i.test(name) && !name.startsWith('System:') && !name.startsWith('File:'),
  );
  const position = await exifr.gps(Buffer.from(bytes)).catch(() => undefined);
  if (position && Number.isFinite(position.latitude)) traces.push('exifr:gps');
  return traces;
}

/**
 * The decoded pixels, as raw bytes with their layout: sharp (libvips) for JPEG, PNG,
 * WebP and TIFF, libheif's `heif-convert` for HEIC. No rotation is applied, so a change of
 * the orientation tag alone would not show here; it is checked on the tags.
 */
export async function decodedPixels(
  bytes: Uint8Array,
  format: PhotoFormat,
): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  let input = Buffer.from(bytes);
  if (format === 'heic') {
    input = await inTemp(async (dir) => {
      const heic = join(dir, 'in.heic');
      const png = join(dir, 'out.png');
      await writeFile(heic, bytes);
      await run(HEIF_CONVERT, [heic, png]);
      return readFile(png);
    });
  }
  const { data, info } = await sharp(input).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}
