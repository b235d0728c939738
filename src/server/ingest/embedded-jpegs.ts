import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/**
 * JPEG images inside a file: an EXIF thumbnail or a maker note's preview (inside the main
 * image's segments), the pictures of a multi-picture (MPF) photo and any other image
 * appended after the main one. Readers look at the main image's metadata only, so a
 * position in one of these is found by looking for every JPEG start in the bytes.
 *
 * A JPEG starts with SOI and a marker, `FF D8 FF`. Inside a JPEG's entropy-coded data an
 * `FF` is always followed by `00` or a restart marker, so that sequence never appears in
 * pixels of a JPEG; in other formats' compressed data it appears by chance about once in
 * 16 MiB, and such a start reads as no metadata.
 */
const JPEG_START = Buffer.from([0xff, 0xd8, 0xff]);

/** More starts than this in one file is not a photo but a file made to be slow to check. */
export const MAX_EMBEDDED_JPEGS = 1024;

/**
 * The most header bytes (the segments before the image data) read of one embedded JPEG:
 * its metadata is there, and 16 MiB is far more than any camera writes.
 */
const MAX_HEADER_BYTES = 16 * 1024 * 1024;

/** An embedded JPEG: where it starts, and its header (SOI up to the image data). */
export interface EmbeddedJpeg {
  offset: number;
  header: Buffer;
  /** The header went on past `MAX_HEADER_BYTES`: what follows was not read. */
  cut: boolean;
}

/**
 * The offsets of every JPEG start after the first byte of `file`, read as a stream; null
 * when there are more than `MAX_EMBEDDED_JPEGS`.
 */
export async function embeddedJpegOffsets(file: string): Promise<number[] | null> {
  const offsets: number[] = [];
  // The last bytes of the previous piece, so a start split across two pieces is seen.
  let carry: Buffer = Buffer.alloc(0);
  let position = 0;
  for await (const piece of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, piece as Buffer]) : (piece as Buffer);
    const base = position - carry.length;
    for (let at = bytes.indexOf(JPEG_START); at >= 0; at = bytes.indexOf(JPEG_START, at + 1)) {
      const offset = base + at;
      if (offset === 0) continue;
      offsets.push(offset);
      if (offsets.length > MAX_EMBEDDED_JPEGS) return null;
    }
    position += (piece as Buffer).length;
    carry = bytes.subarray(Math.max(0, bytes.length - (JPEG_START.length - 1)));
  }
  return offsets;
}

/** The header of the JPEG that starts at `offset`: its marker segments, up to the first scan. */
export async function embeddedJpegHeader(file: string, offset: number): Promise<EmbeddedJpeg> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const limit = Math.min(size, offset + MAX_HEADER_BYTES);
    const end = await headerEnd(handle, offset, limit);
    const header = Buffer.alloc(end - offset);
    await handle.read(header, 0, header.length, offset);
    // Segments went on to the limit, and the file goes on after it: the rest was not read.
    return { offset, header, cut: end + 4 > limit && limit < size };
  } finally {
    await handle.close();
  }
}

/**
 * Walks the marker segments from SOI (ITU T.81, B.1): each is `FF`, a marker, and (but for
 * the standalone markers) a 2-byte length. The header ends after SOS's own segment, at EOI,
 * at the first bytes that are not a marker, or at `limit`.
 */
async function headerEnd(handle: FileHandle, offset: number, limit: number): Promise<number> {
  const marker = Buffer.alloc(4);
  let at = offset + 2;
  while (at + 4 <= limit) {
    await handle.read(marker, 0, 4, at);
    if (marker[0] !== 0xff) return at;
    const code = marker[1] as number;
    if (code === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (code === 0xda) return Math.min(limit, at + 2 + marker.readUInt16BE(2));
    if (code === 0xd8 || code === 0x01 || (code >= 0xd0 && code <= 0xd7)) {
      at += 2;
      continue;
    }
    if (code === 0xd9) return at + 2;
    at += 2 + marker.readUInt16BE(2);
  }
  return Math.min(at, limit);
}
