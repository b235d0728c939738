import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseCropAspect } from '../../src/elements/image-editor/crop-aspect.js';
import {
  cropOf,
  fitMatrix,
  flip,
  imageBounds,
  isInside,
  largestInside,
  type Matrix,
  type Orientation,
  stepBox,
  turn,
  UPRIGHT,
  zoomAbout,
} from '../../src/elements/image-editor/geometry.js';

/**
 * The image editor's geometry (`geometry.ts`), without a browser: where the image lies for
 * each turn and flip, that the crop box stays inside it whatever the keys, and which of the
 * edited image's pixels the box holds. And `crop-aspect`'s parser.
 */

const natural = fc.record({
  width: fc.integer({ min: 1, max: 8000 }),
  height: fc.integer({ min: 1, max: 8000 }),
});
const canvas = fc.record({
  width: fc.integer({ min: 50, max: 2000 }),
  height: fc.integer({ min: 50, max: 2000 }),
});
const orientation: fc.Arbitrary<Orientation> = fc.record({
  rotate: fc.constantFrom(0, 90, 180, 270),
  flipX: fc.boolean(),
  flipY: fc.boolean(),
});
const aspect = fc.option(fc.double({ min: 0.1, max: 10, noNaN: true }), { nil: null });

/** Where the matrix puts an image point (cropper-image turns about the image's center). */
function apply(matrix: Matrix, size: { width: number; height: number }, x: number, y: number) {
  const [a, b, c, d, e, f] = matrix;
  const dx = x - size.width / 2;
  const dy = y - size.height / 2;
  return { x: a * dx + c * dy + size.width / 2 + e, y: b * dx + d * dy + size.height / 2 + f };
}

const near = (a: number, b: number) =>
  Math.abs(a - b) < 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

describe('the image editor geometry', () => {
  it('fits the turned and flipped image whole, centered, touching two sides of the canvas', () => {
    fc.assert(
      fc.property(natural, canvas, orientation, (size, view, o) => {
        const bounds = imageBounds(fitMatrix(o, size, view), size);
        assert.ok(isInside(bounds, { x: 0, y: 0, ...view }));
        assert.ok(near(bounds.x + bounds.width / 2, view.width / 2));
        assert.ok(near(bounds.y + bounds.height / 2, view.height / 2));
        assert.ok(near(bounds.width, view.width) || near(bounds.height, view.height));
        // A quarter turn swaps the image's sides.
        const turned = o.rotate % 180 !== 0;
        const ratio = turned ? size.height / size.width : size.width / size.height;
        assert.ok(near(bounds.width / bounds.height, ratio));
      }),
    );
  });

  it('turns clockwise and flips as the person sees it: the top-left corner goes where it should', () => {
    const size = { width: 400, height: 200 };
    const view = { width: 400, height: 400 };
    const corner = (o: Orientation) => {
      const matrix = fitMatrix(o, size, view);
      const point = apply(matrix, size, 0, 0);
      const bounds = imageBounds(matrix, size);
      return [
        near(point.x, bounds.x) ? 'left' : 'right',
        near(point.y, bounds.y) ? 'top' : 'bottom',
      ].join(' ');
    };
    assert.equal(corner(UPRIGHT), 'left top');
    assert.equal(corner(turn(UPRIGHT, 1)), 'right top');
    assert.equal(corner(turn(UPRIGHT, -1)), 'left bottom');
    assert.equal(corner(flip(UPRIGHT, 'x')), 'right top');
    assert.equal(corner(flip(UPRIGHT, 'y')), 'left bottom');
    // Flipped left to right after a quarter turn: the screen's mirror of the turned image.
    assert.equal(corner(flip(turn(UPRIGHT, 1), 'x')), 'left top');
    // Four quarter turns, or two flips of one axis, are no change.
    let o = UPRIGHT;
    for (let i = 0; i < 4; i++) o = turn(o, 1);
    assert.deepEqual(o, UPRIGHT);
    assert.deepEqual(flip(flip(turn(UPRIGHT, 1), 'y'), 'y'), turn(UPRIGHT, 1));
  });

  it('keeps the crop box inside the image, at its ratio, whatever the keys', () => {
    const step = fc.record({
      dx: fc.integer({ min: -500, max: 500 }),
      dy: fc.integer({ min: -500, max: 500 }),
      dw: fc.integer({ min: -500, max: 500 }),
      dh: fc.integer({ min: -500, max: 500 }),
    });
    fc.assert(
      fc.property(
        natural,
        canvas,
        orientation,
        aspect,
        fc.array(step, { maxLength: 20 }),
        (size, view, o, ratio, steps) => {
          const bounds = imageBounds(fitMatrix(o, size, view), size);
          let box = largestInside(bounds, ratio);
          for (const { dx, dy, dw, dh } of steps) {
            box = stepBox(box, bounds, dw % 2 ? { dw, dh } : { dx, dy }, ratio);
            assert.ok(isInside(box, bounds), JSON.stringify({ box, bounds }));
            if (ratio) assert.ok(near(box.width / box.height, ratio));
          }
        },
      ),
    );
  });

  it('crops exactly the pixels under the box, at the image resolution, and a fixed ratio exactly', () => {
    fc.assert(
      fc.property(natural, canvas, orientation, aspect, (size, view, o, ratio) => {
        const matrix = fitMatrix(o, size, view);
        const bounds = imageBounds(matrix, size);
        const whole = cropOf(largestInside(bounds, ratio), matrix, size, ratio);
        const turned = o.rotate % 180 !== 0;
        const fullWidth = turned ? size.height : size.width;
        const fullHeight = turned ? size.width : size.height;
        assert.ok(whole.x >= 0 && whole.y >= 0);
        assert.ok(whole.x + whole.width <= fullWidth && whole.y + whole.height <= fullHeight);
        if (!ratio) assert.deepEqual(whole, { x: 0, y: 0, width: fullWidth, height: fullHeight });
        else if (whole.width > 1)
          assert.equal(
            whole.height,
            Math.min(fullHeight, Math.max(1, Math.round(whole.width / ratio))),
          );
      }),
    );
    // Zoomed in twice about the canvas center: the same box holds half the pixels.
    const size = { width: 1000, height: 500 };
    const view = { width: 500, height: 500 };
    const matrix = fitMatrix(UPRIGHT, size, view);
    const zoomed = zoomAbout(matrix, 2, { x: 250, y: 250 }, size);
    const box = { x: 200, y: 200, width: 100, height: 100 };
    assert.deepEqual(cropOf(box, matrix, size, null), { x: 400, y: 150, width: 200, height: 200 });
    assert.deepEqual(cropOf(box, zoomed, size, null), { x: 450, y: 200, width: 100, height: 100 });
  });

  it('reads crop-aspect: free, ratios, a choice; a word that is neither is left out', () => {
    assert.deepEqual(parseCropAspect(null), [{ label: 'free', ratio: null }]);
    assert.deepEqual(parseCropAspect('1:1'), [{ label: '1:1', ratio: 1 }]);
    assert.deepEqual(
      parseCropAspect(' free 16:9  4:3 1.91:1 ').map((c) => c.ratio),
      [null, 16 / 9, 4 / 3, 1.91],
    );
    // The same ratio twice is one choice.
    assert.deepEqual(parseCropAspect('1:1 2:2').length, 1);
    const warn = console.warn;
    console.warn = () => {};
    try {
      assert.deepEqual(parseCropAspect('square 0:1 1:0 -1:1 x'), [{ label: 'free', ratio: null }]);
      fc.assert(
        fc.property(fc.string(), (value) => {
          const choices = parseCropAspect(value);
          assert.ok(choices.length > 0);
          for (const choice of choices)
            assert.ok(choice.ratio === null || (Number.isFinite(choice.ratio) && choice.ratio > 0));
        }),
      );
    } finally {
      console.warn = warn;
    }
  });
});
