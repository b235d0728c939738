import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  accepts,
  outputFormat,
  sourceFormat,
  variantFileName,
  variantHeader,
  variantName,
  variantSpec,
} from '../../../../src/server/cdn/variants/variant-key.js';
import { DERIVED_NAME_PATTERN } from '../../../../src/server/storage/blob-store.js';

describe('variant keys', () => {
  it('reads Accept as browsers send it, a q of 0 meaning "not this"', () => {
    const chrome = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';
    assert.equal(accepts(chrome, 'image/avif'), true);
    assert.equal(accepts('image/webp;q=0.5, */*', 'image/webp'), true);
    assert.equal(accepts('image/avif;q=0, image/webp', 'image/avif'), false);
    assert.equal(accepts('image/*', 'image/webp'), false, 'only a type listed by name counts');
    assert.equal(accepts(undefined, 'image/webp'), false);
    assert.equal(outputFormat('auto', 'png', chrome), 'avif');
    assert.equal(outputFormat('auto', 'png', 'image/webp'), 'webp');
    assert.equal(outputFormat('auto', 'gif', '*/*'), 'gif');
    assert.equal(outputFormat(null, 'jpeg', chrome), 'jpeg');
    assert.equal(outputFormat('png', 'jpeg', chrome), 'png');
  });

  it('knows the transformable types and no other (SVG is not decoded)', () => {
    assert.equal(sourceFormat('image/jpeg'), 'jpeg');
    assert.equal(sourceFormat('image/tiff'), 'tiff');
    assert.equal(sourceFormat('image/svg+xml'), null);
    assert.equal(sourceFormat('application/pdf'), null);
  });

  it('names one stored object per distinct output, a valid derived name', () => {
    const base = { width: 640, height: null, fit: 'inside', quality: 75 } as const;
    const webp = variantSpec({ ...base, format: 'webp' }, 'jpeg', undefined);
    assert.equal(variantName(webp), 'w640_h0_inside_q75.webp');
    assert.equal(variantHeader(webp), 'w=640,fit=inside,format=webp,q=75');
    assert.match(variantName(webp), DERIVED_NAME_PATTERN);
    // PNG has no quality: every q names the same variant.
    const png30 = variantSpec({ ...base, quality: 30, format: 'png' }, 'jpeg', undefined);
    const png80 = variantSpec({ ...base, quality: 80, format: 'png' }, 'jpeg', undefined);
    assert.equal(variantName(png30), variantName(png80));
    assert.equal(variantFileName('a.b.JPG', 'webp'), 'a.b.webp');
    assert.equal(variantFileName('.hidden', 'png'), '.hidden.png');
  });
});
