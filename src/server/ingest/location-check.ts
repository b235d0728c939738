import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import exifr from 'exifr';
import type { ExifTool } from 'exiftool-vendored';
import { embeddedJpegHeader, embeddedJpegOffsets, MAX_EMBEDDED_JPEGS } from './embedded-jpegs.js';
import { ReadTagsTask } from './exiftool-tasks.js';
import { isLocationName } from './location-names.js';
import { holdsLocation, isPng, pngTextChunks } from './png-text.js';

/** A position found in a file: in the main image's metadata, or in an image inside it. */
export interface LocationTrace {
  /** `embedded`: a JPEG inside the file (a thumbnail, a preview, an appended picture). */
  where: 'main' | 'embedded';
  /** What holds it, for the log: `GPS:GPSLatitude`, `exifr`, `PNG tEXt GPSLatitude` … */
  what: string;
}

/** Groups that describe the file or are computed from other tags, never stored in it. */
const NOT_STORED = new Set(['SourceFile', 'System', 'File', 'Composite', 'ExifTool']);

/**
 * Every position two independent readers find in `file`: ExifTool reading every group,
 * duplicates and embedded documents (`-a -G3:1 -ee3`, MPF pictures included), `exifr`
 * (a JavaScript reader of its own), both of them again on the header of every JPEG inside
 * the file (thumbnails and appended images, which neither reads from the main image), and,
 * in a PNG, text chunks that name or give a position. `workDir`: where the embedded headers
 * are written for ExifTool.
 */
export async function findLocation(
  exiftool: ExifTool,
  file: string,
  workDir: string,
): Promise<LocationTrace[]> {
  const traces: LocationTrace[] = [];
  // ExifTool's read of the whole file (the longest step: `-ee3` reads to its end) runs in
  // its own process while this one looks for the JPEGs inside.
  const mainTags = exiftool.enqueueTask(() => ReadTagsTask.for([file]), false);
  mainTags.catch(() => undefined); // awaited below, unless the file is refused first
  const offsets = await embeddedJpegOffsets(file);
  if (offsets === null) {
    return [{ where: 'embedded', what: `more than ${MAX_EMBEDDED_JPEGS} embedded JPEG starts` }];
  }
  const headerFiles: string[] = [];
  for (const [index, offset] of offsets.entries()) {
    const embedded = await embeddedJpegHeader(file, offset);
    const at = `embedded JPEG at ${offset}`;
    if (embedded.cut) traces.push({ where: 'embedded', what: `${at}: header too long to read` });
    if (await exifrFinds(embedded.header)) traces.push({ where: 'embedded', what: `${at}: exifr` });
    const headerFile = join(workDir, `embedded-${index}.jpg`);
    await writeFile(headerFile, embedded.header);
    headerFiles.push(headerFile);
  }
  const headerTags =
    headerFiles.length === 0
      ? []
      : await exiftool.enqueueTask(() => ReadTagsTask.for(headerFiles), false);
  const tagsOfEach = [...(await mainTags), ...headerTags];
  for (const [index, tags] of tagsOfEach.entries()) {
    const where = index === 0 ? 'main' : 'embedded';
    const prefix = index === 0 ? '' : `embedded JPEG at ${offsets[index - 1]}: `;
    // The main file was written or read by ExifTool just before: unreadable now, it is not
    // a file anyone can vouch for. (An embedded start that is not a JPEG is just bytes.)
    const error = tags['ExifTool:Error'];
    if (index === 0 && error !== undefined) traces.push({ where, what: `unreadable: ${error}` });
    for (const key of Object.keys(tags)) {
      const path = key.split(':');
      const name = path.at(-1) as string;
      if (path.some((group) => NOT_STORED.has(group)) || !isLocationName(name)) continue;
      // `Doc1:GPS:…`: a document inside the file (an MPF picture, a phone's appended video).
      const inDocument = path.length > 2 && /^Doc\d/.test(path[0] as string);
      traces.push({ where: inDocument ? 'embedded' : where, what: `${prefix}${key}` });
    }
  }
  if (await exifrFinds(file)) traces.push({ where: 'main', what: 'exifr' });
  if (await isPng(file)) {
    for (const chunk of (await pngTextChunks(file)).filter(holdsLocation)) {
      traces.push({ where: 'main', what: `PNG ${chunk.type} ${chunk.keyword}` });
    }
  }
  return traces;
}

/** Whether `exifr` reads a position (it reads what it can and throws on what it cannot). */
async function exifrFinds(input: string | Buffer): Promise<boolean> {
  const position = await exifr.gps(input).catch(() => undefined);
  return position !== undefined && Number.isFinite(position.latitude);
}
