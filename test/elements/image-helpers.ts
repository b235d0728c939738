/** Images and an uploader for the tests of `max-image-*` (the worker and the page-only path). */
import { expect, fixture, html } from '@open-wc/testing';
import type { FileRecord } from '../../src/api/types.js';
import type { FileUploaderElement } from '../../src/elements/file-uploader/file-uploader.js';
import { publicUrlOf } from '../helpers/public-url.js';
import { next, pick, project } from './helpers.js';

export async function uploader(attributes: Record<string, string>): Promise<FileUploaderElement> {
  const p = await project();
  const element = await fixture<FileUploaderElement>(
    html`<file-uploader endpoint=${p.endpoint} api-key=${p.publishableKey} multiple></file-uploader>`,
  );
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  await element.updateComplete;
  return element;
}

/** A JPEG drawn on a canvas: the left half red, the right half blue. */
export async function halves(
  width: number,
  height: number,
  quality = 0.92,
): Promise<Uint8Array<ArrayBuffer>> {
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d context');
  context.fillStyle = '#ff0000';
  context.fillRect(0, 0, width / 2, height);
  context.fillStyle = '#0000ff';
  context.fillRect(width / 2, 0, width / 2, height);
  const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality });
  return new Uint8Array(await blob.arrayBuffer());
}

/**
 * The JPEG with an EXIF block as a camera writes it: orientation 6 (the picture is stored
 * turned: shown upright, the stored left edge is the top) and a GPS position.
 */
export function withExif(jpeg: Uint8Array): Uint8Array<ArrayBuffer> {
  const tiff = new DataView(new ArrayBuffer(56));
  tiff.setUint16(0, 0x4949); // "II": little-endian
  tiff.setUint16(2, 42, true);
  tiff.setUint32(4, 8, true); // IFD0
  tiff.setUint16(8, 2, true); // two entries
  tiff.setUint16(10, 0x0112, true); // Orientation, SHORT, 1: 6
  tiff.setUint16(12, 3, true);
  tiff.setUint32(14, 1, true);
  tiff.setUint16(18, 6, true);
  tiff.setUint16(22, 0x8825, true); // GPS IFD pointer, LONG, 1: 38
  tiff.setUint16(24, 4, true);
  tiff.setUint32(26, 1, true);
  tiff.setUint32(30, 38, true);
  tiff.setUint32(34, 0, true); // no next IFD
  tiff.setUint16(38, 1, true); // GPS IFD: one entry
  tiff.setUint16(40, 0x0001, true); // GPSLatitudeRef, ASCII, 2: "N"
  tiff.setUint16(42, 2, true);
  tiff.setUint32(44, 2, true);
  tiff.setUint8(48, 0x4e);
  tiff.setUint32(52, 0, true);
  const header = new TextEncoder().encode('Exif\0\0');
  const length = 2 + header.length + tiff.byteLength;
  const segment = new Uint8Array([0xff, 0xe1, length >> 8, length & 0xff]);
  return new Uint8Array([
    ...jpeg.subarray(0, 2),
    ...segment,
    ...header,
    ...new Uint8Array(tiff.buffer),
    ...jpeg.subarray(2),
  ]);
}

export function contains(haystack: Uint8Array, needle: string): boolean {
  const bytes = new TextEncoder().encode(needle);
  outer: for (let i = 0; i + bytes.length <= haystack.length; i++) {
    for (let j = 0; j < bytes.length; j++) if (haystack[i + j] !== bytes[j]) continue outer;
    return true;
  }
  return false;
}

export async function served(record: FileRecord): Promise<Uint8Array<ArrayBuffer>> {
  const response = await fetch(publicUrlOf(record));
  expect(response.ok).to.equal(true);
  return new Uint8Array(await response.arrayBuffer());
}

/** The colour at (x, y) of an image as the browser shows it: [r, g, b]. */
export async function pixel(
  bytes: Uint8Array<ArrayBuffer>,
  x: number,
  y: number,
): Promise<number[]> {
  const bitmap = await createImageBitmap(new Blob([bytes]));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d context');
  context.drawImage(bitmap, 0, 0);
  return [...context.getImageData(x, y, 1, 1).data.slice(0, 3)];
}

export async function size(bytes: Uint8Array<ArrayBuffer>): Promise<[number, number]> {
  const bitmap = await createImageBitmap(new Blob([bytes]));
  return [bitmap.width, bitmap.height];
}

export async function uploadOne(
  element: FileUploaderElement,
  chosen: File[],
): Promise<FileRecord[]> {
  const done = next(element, 'upload-complete', 30_000);
  pick(element, chosen);
  const { successful, failed } = await done;
  expect(failed).to.deep.equal([]);
  return successful;
}
