import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
// Uppy itself: what the upload engine refuses a file by (`allowedFileTypes`).
import Uppy from '@uppy/core';
import fc from 'fast-check';
import { accepts } from '../../src/elements/image-editor/accepts.js';

/**
 * `<file-uploader image-editor>` decides which images wait for the editor by the page's
 * `accept` before the engine sees them: it must read `accept` exactly as the engine (Uppy)
 * does, or an image would wait that the engine then refuses, or be refused that it takes.
 */

function engineAccepts(accept: string, file: { name: string; type: string }): boolean {
  const allowedFileTypes = accept
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  const uppy = new Uppy({
    restrictions: { allowedFileTypes: allowedFileTypes.length > 0 ? allowedFileTypes : null },
  });
  const dot = file.name.lastIndexOf('.');
  const extension =
    dot === -1 || dot === file.name.length - 1 ? undefined : file.name.slice(dot + 1);
  return uppy.validateSingleFile({ ...file, extension, size: 1 } as never) === null;
}

const word = fc.constantFrom(
  'image',
  'jpeg',
  'JPEG',
  'png',
  'svg',
  'xml',
  'webp',
  'jpg',
  'JPG',
  'gz',
  '*',
  '',
);
const mediaType = fc
  .tuple(word, word, fc.constantFrom('', '+xml', '.v1', '; charset=x'))
  .map(([a, b, tail]) => `${a}/${b}${tail}`);
const extension = word.map((w) => `.${w}`);
const item = fc.oneof(mediaType, extension, word);
const acceptList = fc
  .array(fc.tuple(item, fc.constantFrom('', ' ', '  ')), { maxLength: 4 })
  .map((items) => items.map(([text, pad]) => `${pad}${text}${pad}`).join(','));
const fileOf = fc.record({
  name: fc
    .tuple(
      fc.constantFrom('photo', '', '.hidden', 'a.b'),
      fc.constantFrom('', '.', '.jpg', '.JPG', '.tar.gz', '.png'),
    )
    .map(([base, ext]) => `${base}${ext}`),
  type: fc.oneof(
    mediaType,
    fc.constantFrom('', 'image', 'image/jpeg', 'image/png', 'image/svg+xml'),
  ),
});

describe('accepts (which images may wait for the editor)', () => {
  it('reads `accept` as the upload engine (Uppy) does, for any list and file', () => {
    fc.assert(
      fc.property(acceptList, fileOf, (accept, file) => {
        assert.equal(
          accepts(accept, file),
          engineAccepts(accept, file),
          `${accept} / ${file.name} ${file.type}`,
        );
      }),
      { numRuns: 5000 },
    );
  });

  it('takes the common cases as a page means them', () => {
    const jpeg = { name: 'Photo.JPG', type: 'image/jpeg' };
    assert.equal(accepts('', jpeg), true);
    assert.equal(accepts('image/*', jpeg), true);
    assert.equal(accepts('image/png, .jpg', jpeg), true);
    assert.equal(accepts('image/png', jpeg), false);
    assert.equal(accepts('.png,application/pdf', jpeg), false);
  });
});
