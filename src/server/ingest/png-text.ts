import { createReadStream, createWriteStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { inflateSync } from 'node:zlib';
import { isLocationName, mentionsLocation } from './location-names.js';

/** A PNG starts with these 8 bytes (PNG specification, 5.2). */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The most a text chunk is read or inflated to: a chunk larger than this, or one that
 * inflates past it, cannot be read here and counts as possibly holding a position.
 */
const TEXT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Keywords whose text ExifTool reads and edits as metadata of its own (XMP; ImageMagick's
 * hex-encoded EXIF, IPTC and XMP profiles): they are left to it, and read back by it.
 */
function editedByExifTool(keyword: string): boolean {
  return keyword === 'XML:com.adobe.xmp' || keyword.startsWith('Raw profile type ');
}

/** A `tEXt`, `zTXt` or `iTXt` chunk: where it lies (length to CRC) and what it says. */
export interface PngTextChunk {
  start: number;
  end: number;
  type: 'tEXt' | 'zTXt' | 'iTXt';
  keyword: string;
  /** null: the text could not be read (too large, or compressed data that does not inflate). */
  text: string | null;
}

export async function isPng(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(PNG_SIGNATURE.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length && head.equals(PNG_SIGNATURE);
  } finally {
    await handle.close();
  }
}

/** Every text chunk of a PNG, in order; the image data itself is skipped, never read. */
export async function pngTextChunks(file: string): Promise<PngTextChunk[]> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const chunks: PngTextChunk[] = [];
    const header = Buffer.alloc(8);
    let position = PNG_SIGNATURE.length;
    while (position + 12 <= size) {
      await readExactly(handle, header, position);
      const length = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      const end = position + 12 + length;
      if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
        const data = length <= TEXT_MAX_BYTES ? Buffer.alloc(length) : null;
        if (data) await readExactly(handle, data, position + 8);
        chunks.push({ start: position, end, type, ...decodeText(type, data) });
      }
      if (type === 'IEND') break;
      position = end;
    }
    return chunks;
  } finally {
    await handle.close();
  }
}

/** A text chunk this step removes: a position under its keyword or in its text, or text it cannot read. */
export function holdsLocation(chunk: PngTextChunk): boolean {
  if (editedByExifTool(chunk.keyword)) return false;
  return isLocationName(chunk.keyword) || chunk.text === null || mentionsLocation(chunk.text);
}

/**
 * Writes `input` without the chunks `drop` names to `output`; every other byte is copied
 * as it is (chunks carry their own CRC, so the rest stays valid).
 */
export async function copyWithoutChunks(
  input: string,
  output: string,
  drop: readonly PngTextChunk[],
): Promise<void> {
  const kept: Array<{ start: number; end?: number }> = [];
  let from = 0;
  for (const chunk of [...drop].sort((a, b) => a.start - b.start)) {
    if (chunk.start > from) kept.push({ start: from, end: chunk.start - 1 });
    from = chunk.end;
  }
  kept.push({ start: from });
  await pipeline(async function* () {
    for (const range of kept) yield* createReadStream(input, range);
  }, createWriteStream(output));
}

async function readExactly(handle: FileHandle, into: Buffer, position: number): Promise<void> {
  const { bytesRead } = await handle.read(into, 0, into.length, position);
  if (bytesRead !== into.length) throw new Error('PNG chunk cut short');
}

/** The keyword and text of a text chunk (PNG specification, 11.3.4). */
function decodeText(
  type: PngTextChunk['type'],
  data: Buffer | null,
): { keyword: string; text: string | null } {
  if (!data) return { keyword: '', text: null };
  const keywordEnd = data.indexOf(0);
  if (keywordEnd < 0) return { keyword: data.toString('latin1'), text: null };
  const keyword = data.toString('latin1', 0, keywordEnd);
  const rest = data.subarray(keywordEnd + 1);
  try {
    if (type === 'tEXt') return { keyword, text: rest.toString('latin1') };
    if (type === 'zTXt') return { keyword, text: inflate(rest.subarray(1)).toString('latin1') };
    // iTXt: compression flag, method, language tag\0, translated keyword\0, text (UTF-8).
    const compressed = rest[0] === 1;
    const languageEnd = rest.indexOf(0, 2);
    const translatedEnd = languageEnd < 0 ? -1 : rest.indexOf(0, languageEnd + 1);
    if (translatedEnd < 0) return { keyword, text: null };
    const translated = rest.toString('utf8', languageEnd + 1, translatedEnd);
    const body = rest.subarray(translatedEnd + 1);
    const text = (compressed ? inflate(body) : body).toString('utf8');
    return { keyword, text: `${translated}\n${text}` };
  } catch {
    return { keyword, text: null };
  }
}

function inflate(data: Buffer): Buffer {
  return inflateSync(data, { maxOutputLength: TEXT_MAX_BYTES });
}
