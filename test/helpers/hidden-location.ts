import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import exifr from 'exifr';
import { EXIFTOOL, inTemp, PARIS, type PhotoFormat, phonePhoto, pixels } from './photos.js';

const run = promisify(execFile);

/**
 * Photos whose position hides where readers of the main image's metadata do not look, each
 * made by ExifTool (Debian's, another version than the service's) in the test's setup:
 * - `thumbnail`: the EXIF thumbnail is a JPEG with a GPS directory of its own;
 * - `appended`: a second JPEG with GPS after the main image's end (how phones append
 *   pictures and trailers);
 * - `mpf`: the same as a multi-picture (MPF) photo, whose APP2 index points at the second
 *   picture, so ExifTool's `-ee` reads its GPS as a document of the file;
 * - `png-text`: PNG text chunks, `tEXt` keyed `GPSLatitude`, a compressed `zTXt` and a
 *   language-tagged `iTXt` giving the position in their text, beside an author's `tEXt`;
 * - `xmp-iptc`: IPTC Extension's XMP `LocationCreated`/`LocationShown` GPS and XMP-exif
 *   GPS beside a city in IPTC and XMP, with no EXIF GPS.
 * The main image of each has no EXIF GPS of its own.
 */
export const HIDDEN_PLACES = ['thumbnail', 'appended', 'mpf', 'png-text', 'xmp-iptc'] as const;
export type HiddenPlace = (typeof HIDDEN_PLACES)[number];

export const HIDDEN_PLACE_FORMAT: Record<HiddenPlace, PhotoFormat> = {
  thumbnail: 'jpeg',
  appended: 'jpeg',
  mpf: 'jpeg',
  'png-text': 'png',
  'xmp-iptc': 'jpeg',
};

const GPS = [
  `-GPSLatitude=${PARIS.latitude}`,
  '-GPSLatitudeRef=N',
  `-GPSLongitude=${PARIS.longitude}`,
  '-GPSLongitudeRef=E',
];

/** ExifTool writes `args` into `file` in place. */
async function exiftool(file: string, args: string[]): Promise<void> {
  await run(EXIFTOOL, ['-m', '-q', '-overwrite_original', ...args, file]);
}

/** A JPEG of the test pixels at `width` with an artist and, given `gps`, a position. */
async function jpeg(dir: string, name: string, width: number, gps: boolean): Promise<string> {
  const file = join(dir, name);
  await pixels().resize({ width }).jpeg({ quality: 90 }).toFile(file);
  await exiftool(file, ['-EXIF:Artist=Ada Lovelace', ...(gps ? GPS : [])]);
  return file;
}

export async function hiddenLocationPhoto(place: HiddenPlace): Promise<Buffer> {
  return inTemp(async (dir) => {
    if (place === 'thumbnail') {
      const thumbnail = await jpeg(dir, 'thumbnail.jpg', 32, true);
      const main = await jpeg(dir, 'main.jpg', 96, false);
      await exiftool(main, [`-ThumbnailImage<=${thumbnail}`]);
      return readFile(main);
    }
    if (place === 'appended' || place === 'mpf') {
      const main = await readFile(await jpeg(dir, 'main.jpg', 96, false));
      const second = await readFile(await jpeg(dir, 'second.jpg', 48, true));
      return place === 'mpf' ? multiPicture(main, second) : Buffer.concat([main, second]);
    }
    if (place === 'png-text') {
      const file = join(dir, 'photo.png');
      await pixels().png().toFile(file);
      const config = join(dir, 'png-gps.config');
      // ExifTool writes a PNG text keyword only if it knows it: this names `GPSLatitude`.
      await writeFile(
        config,
        "%Image::ExifTool::UserDefined = ('Image::ExifTool::PNG::TextualData' => { GPSLatitude => { } });\n1;\n",
      );
      await run(EXIFTOOL, [
        '-config',
        config,
        '-q',
        '-overwrite_original',
        `-PNG:GPSLatitude=${PARIS.latitude} N`,
        '-PNG:Author=Ada Lovelace',
        file,
      ]);
      // `-z` writes compressed `zTXt`; a language tag makes an `iTXt`.
      const filler = ' A long afternoon by the river, the light going gold.'.repeat(20);
      await exiftool(file, [
        '-z',
        `-PNG:Description=Taken at ${PARIS.latitude}, ${PARIS.longitude}.${filler}`,
      ]);
      await exiftool(file, [`-PNG:Title-fr=Vue prise à ${PARIS.latitude}, ${PARIS.longitude}`]);
      const bytes = await readFile(file);
      for (const type of ['tEXt', 'zTXt', 'iTXt']) {
        if (!bytes.includes(type)) throw new Error(`the PNG fixture has no ${type} chunk`);
      }
      return bytes;
    }
    const file = join(dir, 'photo.jpg');
    await pixels().jpeg({ quality: 90 }).toFile(file);
    await exiftool(file, [
      `-XMP-iptcExt:LocationCreatedGPSLatitude=${PARIS.latitude}`,
      `-XMP-iptcExt:LocationCreatedGPSLongitude=${PARIS.longitude}`,
      '-XMP-iptcExt:LocationCreatedCity=Paris',
      `-XMP-iptcExt:LocationShownGPSLatitude=${PARIS.latitude}`,
      `-XMP-iptcExt:LocationShownGPSLongitude=${PARIS.longitude}`,
      `-XMP-exif:GPSLatitude=${PARIS.latitude}`,
      `-XMP-exif:GPSLongitude=${PARIS.longitude}`,
      '-XMP-photoshop:City=Paris',
      '-IPTC:City=Paris',
      '-EXIF:Artist=Ada Lovelace',
    ]);
    return readFile(file);
  });
}

/**
 * A multi-picture JPEG (CIPA DC-007): `first` with an APP2 `MPF` index after its APPn
 * segments, and `second` after its end. The index is a TIFF-style IFD (big-endian) with the
 * version, the number of images and two 16-byte entries: size and offset (from the index's
 * own TIFF header; 0 for the first image) of each picture.
 */
export function multiPicture(first: Buffer, second: Buffer): Buffer {
  let insertAt = 2;
  while (
    first[insertAt] === 0xff &&
    (first[insertAt + 1] as number) >= 0xe0 &&
    (first[insertAt + 1] as number) <= 0xef
  ) {
    insertAt += 2 + first.readUInt16BE(insertAt + 2);
  }
  const tiff = Buffer.alloc(8 + 2 + 3 * 12 + 4 + 2 * 16);
  tiff.write('MM\0*', 0, 'latin1');
  tiff.writeUInt32BE(8, 4);
  tiff.writeUInt16BE(3, 8);
  const entry = (index: number, tag: number, type: number, count: number) => {
    const at = 10 + index * 12;
    tiff.writeUInt16BE(tag, at);
    tiff.writeUInt16BE(type, at + 2);
    tiff.writeUInt32BE(count, at + 4);
    return at + 8;
  };
  tiff.write('0100', entry(0, 0xb000, 7, 4), 'latin1'); // MPFVersion
  tiff.writeUInt32BE(2, entry(1, 0xb001, 4, 1)); // NumberOfImages
  const entries = 10 + 3 * 12 + 4;
  tiff.writeUInt32BE(entries, entry(2, 0xb002, 7, 32)); // MPEntry, at `entries`
  const signature = Buffer.from('MPF\0', 'latin1');
  const header = Buffer.from([0xff, 0xe2, 0, 0]);
  header.writeUInt16BE(2 + signature.length + tiff.length, 2);
  const firstSize = first.length + header.length + signature.length + tiff.length;
  const tiffStart = insertAt + header.length + 4;
  tiff.writeUInt32BE(0x20030000, entries); // representative image, baseline MP primary
  tiff.writeUInt32BE(firstSize, entries + 4);
  tiff.writeUInt32BE(0, entries + 8);
  tiff.writeUInt32BE(0x00010001, entries + 16); // large thumbnail
  tiff.writeUInt32BE(second.length, entries + 20);
  tiff.writeUInt32BE(firstSize - tiffStart, entries + 24);
  return Buffer.concat([
    first.subarray(0, insertAt),
    header,
    signature,
    tiff,
    first.subarray(insertAt),
    second,
  ]);
}

/**
 * A JPEG with GPS whose start-of-image marker is doubled (`FF D8 FF D8 …`): ExifTool calls
 * it corrupt and will not write it, though ExifTool and exifr both read its position.
 */
export async function doubledStartJpeg(): Promise<Buffer> {
  const photo = await phonePhoto('jpeg');
  return Buffer.concat([photo.subarray(0, 2), photo]);
}

/** Groups that describe the file or are computed from other tags, never stored in it. */
const NOT_STORED = /^(System|File|Composite|ExifTool)$/;

/**
 * Every trace of the fixtures' position anywhere in `bytes`: read by Debian's ExifTool with
 * every group, duplicate and embedded document (`-a -G3:1 -ee3`) and by exifr, in the file
 * and in every JPEG that starts inside it (each `FF D8 FF`, read to the file's end); a
 * trace is a tag named like GPS, latitude or longitude, or any value giving the fixtures'
 * latitude (PNG text, comments).
 */
export async function everyLocationTrace(bytes: Uint8Array): Promise<string[]> {
  const buffer = Buffer.from(bytes);
  const starts = [0];
  for (
    let at = buffer.indexOf('ffd8ff', 1, 'hex');
    at > 0;
    at = buffer.indexOf('ffd8ff', at + 1, 'hex')
  ) {
    starts.push(at);
  }
  return inTemp(async (dir) => {
    const files = await Promise.all(
      starts.map(async (start) => {
        const file = join(dir, `at-${start}`);
        await writeFile(file, buffer.subarray(start));
        return file;
      }),
    );
    const { stdout } = await run(EXIFTOOL, ['-j', '-a', '-G3:1', '-ee3', '-n', ...files], {
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '[]' }));
    const traces: string[] = [];
    const latitude = String(PARIS.latitude);
    for (const tags of JSON.parse(stdout) as Record<string, unknown>[]) {
      const where = String(tags.SourceFile).replace(/^.*\//, '');
      for (const [key, value] of Object.entries(tags)) {
        const path = key.split(':');
        if (key === 'SourceFile' || path.some((group) => NOT_STORED.test(group))) continue;
        const named = /gps|latitude|longitude/i.test(path.at(-1) as string);
        if (named || JSON.stringify(value).includes(latitude)) traces.push(`${where} ${key}`);
      }
    }
    for (const start of starts) {
      const position = await exifr.gps(buffer.subarray(start)).catch(() => undefined);
      if (position && Number.isFinite(position.latitude)) traces.push(`at-${start} exifr`);
    }
    return traces;
  });
}

/** The EXIF thumbnail of a JPEG as ExifTool extracts it (`-b -ThumbnailImage`); empty when none. */
export async function thumbnailOf(bytes: Uint8Array): Promise<Buffer> {
  return inTemp(async (dir) => {
    const file = join(dir, 'photo.jpg');
    await writeFile(file, bytes);
    const { stdout } = await run(EXIFTOOL, ['-b', '-ThumbnailImage', file], {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  });
}

/**
 * A JPEG whose comment segment (COM, `FF FE`) holds a whole second JPEG with GPS: no edit
 * of the service reaches into a comment, so only reading the result back finds it.
 */
export async function jpegInsideComment(): Promise<Buffer> {
  return inTemp(async (dir) => {
    const main = await readFile(await jpeg(dir, 'main.jpg', 96, false));
    const inner = await readFile(await jpeg(dir, 'inner.jpg', 32, true));
    const marker = Buffer.from([0xff, 0xfe, 0, 0]);
    marker.writeUInt16BE(2 + inner.length, 2);
    return Buffer.concat([main.subarray(0, 2), marker, inner, main.subarray(2)]);
  });
}
