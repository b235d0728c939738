import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DERIVED_NAME_PATTERN } from '../../../../src/server/storage/blob-store.js';
import {
  accepts,
  outputFormat,
  sourceFormat,
  type VariantSpec,
  variantFileName,
  variantHeader,
  variantName,
  variantSpec,
} from '../../../../src/server/variants/variant-key.js';
import {
  FITS,
  SIZE_LADDER,
  type VariantParams,
} from '../../../../src/server/variants/variant-params.js';

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

  const spec = (...args: Parameters<typeof variantSpec>): VariantSpec => {
    const decided = variantSpec(...args);
    assert.ok(typeof decided !== 'string', String(decided));
    return decided;
  };
  const square = { width: 1000, height: 1000 };

  it('names one stored object per distinct output, a valid derived name', () => {
    const base = { width: 640, height: null, fit: 'inside', quality: 75 } as const;
    const webp = spec({ ...base, format: 'webp' }, 'jpeg', undefined, {
      width: 1600,
      height: 1200,
    });
    assert.equal(variantName(webp), 'w640_h480_inside_q75.webp');
    assert.equal(variantHeader(webp), 'w=640,h=480,fit=inside,format=webp,q=75');
    assert.match(variantName(webp), DERIVED_NAME_PATTERN);
    // PNG has no quality: every q names the same variant.
    const png30 = spec({ ...base, quality: 30, format: 'png' }, 'jpeg', undefined, square);
    const png80 = spec({ ...base, quality: 80, format: 'png' }, 'jpeg', undefined, square);
    assert.equal(variantName(png30), variantName(png80));
    assert.equal(variantFileName('a.b.JPG', 'webp'), 'a.b.webp');
    assert.equal(variantFileName('.hidden', 'png'), '.hidden.png');
  });

  it('keys by what is made: sides at or above the image are the image, proportional boxes are inside', () => {
    const named = (params: Partial<VariantParams>, image = square) =>
      variantName(
        spec(
          { width: null, height: null, fit: 'inside', format: 'webp', quality: 75, ...params },
          'png',
          undefined,
          image,
        ),
      );
    const original = named({});
    assert.equal(original, 'w1000_h1000_inside_q75.webp');
    for (const params of [
      { width: 1080 },
      { width: 1920 },
      { width: 3840 },
      { width: 4096 },
      { height: 4096 },
      { width: 4096, height: 4096 },
      { width: 1200, height: 1080, fit: 'cover' },
      { width: 4096, height: 4096, fit: 'fill' },
      { width: 1920, height: 2048, fit: 'contain' },
    ] as const) {
      assert.equal(named(params), original, JSON.stringify(params));
    }
    // A box of the image's proportions is a plain scaling, whatever the fit.
    assert.equal(named({ width: 640, height: 640, fit: 'cover' }), 'w640_h640_inside_q75.webp');
    assert.equal(named({ width: 640, height: 640, fit: 'fill' }), named({ width: 640 }));
    // A box that is not crops, pads or stretches: a variant of its own, at most the image.
    assert.equal(named({ width: 640, height: 4096, fit: 'cover' }), 'w640_h1000_cover_q75.webp');
    assert.equal(named({ width: 640, height: 4096 }), 'w640_h640_inside_q75.webp');
    // Width or height, whichever binds, names the same output.
    const wide = { width: 1000, height: 500 };
    assert.equal(named({ width: 640 }, wide), named({ height: 320 }, wide));
  });

  it('never names an output larger than the image, nor a ladder step above it apart', () => {
    const side = fc.integer({ min: 1, max: 5000 });
    const asked = fc.option(fc.constantFrom(...SIZE_LADDER), { nil: null });
    fc.assert(
      fc.property(side, side, asked, asked, fc.constantFrom(...FITS), (w, h, aw, ah, fit) => {
        const image = { width: w, height: h };
        const params = { width: aw, height: ah, fit, format: 'png', quality: 75 } as const;
        const made = spec(params, 'png', undefined, image);
        assert.ok(made.width >= 1 && made.width <= w && made.height >= 1 && made.height <= h);
        // Every step at or above the image's side names the same variant as the side itself.
        const clamp = (value: number | null, limit: number) =>
          value === null ? null : Math.min(value, limit);
        const atImage = spec(
          { ...params, width: clamp(aw, w), height: clamp(ah, h) },
          'png',
          undefined,
          image,
        );
        assert.equal(variantName(made), variantName(atImage));
      }),
      { numRuns: 2000 },
    );
  });

  it('caps AVIF at 2,048 px: refused when asked by name (or as the original format), WebP for auto', () => {
    const big = { width: 6000, height: 4000 };
    const params = { width: 3840, height: null, fit: 'inside', quality: 75 } as const;
    const chrome = 'image/avif,image/webp,*/*';
    assert.match(
      String(variantSpec({ ...params, format: 'avif' }, 'jpeg', chrome, big)),
      /2048 px/,
    );
    assert.match(String(variantSpec({ ...params, format: null }, 'avif', chrome, big)), /2048 px/);
    const auto = spec({ ...params, format: 'auto' }, 'jpeg', chrome, big);
    assert.deepEqual(
      [auto.format, auto.width, auto.height, auto.negotiated],
      ['webp', 3840, 2560, true],
    );
    // At the cap, AVIF it is.
    const at = spec({ ...params, width: 2048, format: 'avif' }, 'jpeg', chrome, big);
    assert.deepEqual([at.format, at.width, at.height], ['avif', 2048, 1365]);
    const tall = spec({ ...params, width: 2048, format: 'auto' }, 'jpeg', chrome, {
      width: 4000,
      height: 6000,
    });
    assert.deepEqual([tall.format, tall.width, tall.height], ['webp', 2048, 3072]);
  });
});
