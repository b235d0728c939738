/**
 * The image editor's geometry, in the cropper canvas's pixels: how the image lies on the
 * canvas (Cropper.js's `cropper-image` matrix, whose origin is the image's center), where
 * the crop box may go, and which of the edited image's pixels the box holds. Plain
 * functions of numbers, so they are checked without a browser.
 */

/** A 2-D affine matrix `[a, b, c, d, e, f]`, as CSS and `cropper-image` write it. */
export type Matrix = readonly [number, number, number, number, number, number];

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Size {
  width: number;
  height: number;
}

/**
 * Turns and flips as the `image-edit` event reports them: the image is flipped first
 * (`flipX` mirrors it left to right, `flipY` top to bottom), then turned clockwise by
 * `rotate` degrees (0, 90, 180 or 270).
 */
export interface Orientation {
  rotate: number;
  flipX: boolean;
  flipY: boolean;
}

export const UPRIGHT: Orientation = { rotate: 0, flipX: false, flipY: false };

/** A quarter turn clockwise (`turns` 1) or anticlockwise (-1), as the person sees it. */
export function turn(orientation: Orientation, turns: 1 | -1): Orientation {
  return { ...orientation, rotate: (orientation.rotate + 90 * turns + 360) % 360 };
}

/**
 * A flip as the person sees it (left to right on the screen, whatever the turn): mirroring
 * a turned image is the same as turning the mirrored one the other way.
 */
export function flip(orientation: Orientation, axis: 'x' | 'y'): Orientation {
  return {
    rotate: (360 - orientation.rotate) % 360,
    flipX: axis === 'x' ? !orientation.flipX : orientation.flipX,
    flipY: axis === 'y' ? !orientation.flipY : orientation.flipY,
  };
}

/** The linear part of an orientation at scale 1: turn × flip. */
function linear({ rotate, flipX, flipY }: Orientation): [number, number, number, number] {
  const radians = (rotate * Math.PI) / 180;
  // Rounded: a quarter turn's sine and cosine are exactly 0 and ±1.
  const cos = Math.round(Math.cos(radians));
  const sin = Math.round(Math.sin(radians));
  const x = flipX ? -1 : 1;
  const y = flipY ? -1 : 1;
  return [cos * x, sin * x, -sin * y, cos * y];
}

/** Where a natural-size image lies on the canvas under `matrix` (its bounding box). */
export function imageBounds(matrix: Matrix, natural: Size): Rect {
  const [a, b, c, d, e, f] = matrix;
  const halfWidth = (Math.abs(a) * natural.width + Math.abs(c) * natural.height) / 2;
  const halfHeight = (Math.abs(b) * natural.width + Math.abs(d) * natural.height) / 2;
  const centerX = natural.width / 2 + e;
  const centerY = natural.height / 2 + f;
  return {
    x: centerX - halfWidth,
    y: centerY - halfHeight,
    width: 2 * halfWidth,
    height: 2 * halfHeight,
  };
}

/**
 * The matrix that shows the image turned and flipped, whole and centered on the canvas,
 * `margin` pixels from its edges at least (where the crop box's handles stay in view).
 */
export function fitMatrix(
  orientation: Orientation,
  natural: Size,
  canvas: Size,
  margin = 0,
): Matrix {
  const [a, b, c, d] = linear(orientation);
  const turnedWidth = Math.abs(a) * natural.width + Math.abs(c) * natural.height;
  const turnedHeight = Math.abs(b) * natural.width + Math.abs(d) * natural.height;
  const scale = Math.min(
    Math.max(1, canvas.width - 2 * margin) / turnedWidth,
    Math.max(1, canvas.height - 2 * margin) / turnedHeight,
  );
  return [
    a * scale,
    b * scale,
    c * scale,
    d * scale,
    canvas.width / 2 - natural.width / 2,
    canvas.height / 2 - natural.height / 2,
  ];
}

/** The matrix zoomed by `factor` about a canvas point, which stays where it is. */
export function zoomAbout(
  matrix: Matrix,
  factor: number,
  point: { x: number; y: number },
  natural: Size,
): Matrix {
  const [a, b, c, d, e, f] = matrix;
  const centerX = natural.width / 2 + e;
  const centerY = natural.height / 2 + f;
  const newCenterX = point.x + factor * (centerX - point.x);
  const newCenterY = point.y + factor * (centerY - point.y);
  return [
    a * factor,
    b * factor,
    c * factor,
    d * factor,
    newCenterX - natural.width / 2,
    newCenterY - natural.height / 2,
  ];
}

/** The largest box of `aspect` (width / height; null: any) centered inside `bounds`. */
export function largestInside(bounds: Rect, aspect: number | null): Rect {
  if (!aspect) return { ...bounds };
  const width = Math.min(bounds.width, bounds.height * aspect);
  const height = width / aspect;
  return {
    x: bounds.x + (bounds.width - width) / 2,
    y: bounds.y + (bounds.height - height) / 2,
    width,
    height,
  };
}

/** Whether `inner` lies inside `outer` (half a pixel of rounding allowed). */
export function isInside(inner: Rect, outer: Rect): boolean {
  const slack = 0.5;
  return (
    inner.x >= outer.x - slack &&
    inner.y >= outer.y - slack &&
    inner.x + inner.width <= outer.x + outer.width + slack &&
    inner.y + inner.height <= outer.y + outer.height + slack
  );
}

/**
 * The box moved (by `dx`, `dy`) or resized (its far edges by `dw`, `dh`) from the keyboard,
 * kept inside `bounds`, at least `min` pixels, and of `aspect` when one is fixed (the width
 * leads; a height step then changes the width by as much).
 */
export function stepBox(
  box: Rect,
  bounds: Rect,
  step: { dx?: number; dy?: number; dw?: number; dh?: number },
  aspect: number | null,
  min = 16,
): Rect {
  let { width, height } = box;
  if (step.dw || step.dh) {
    // Never larger than what is left of the image from the box's corner, nor smaller than
    // `min` (or all that is left, on an image smaller than that).
    const roomWidth = bounds.x + bounds.width - box.x;
    const roomHeight = bounds.y + bounds.height - box.y;
    if (aspect) {
      const grow = step.dw || (step.dh ?? 0) * aspect;
      const most = Math.min(roomWidth, roomHeight * aspect);
      width = clamp(width + grow, Math.min(min, most), most);
      height = width / aspect;
    } else {
      width = clamp(width + (step.dw ?? 0), Math.min(min, roomWidth), roomWidth);
      height = clamp(height + (step.dh ?? 0), Math.min(min, roomHeight), roomHeight);
    }
  }
  const x = clamp(box.x + (step.dx ?? 0), bounds.x, bounds.x + bounds.width - width);
  const y = clamp(box.y + (step.dy ?? 0), bounds.y, bounds.y + bounds.height - height);
  return { x, y, width, height };
}

/**
 * The edited image's pixels the crop box holds: the box in the pixels of the image turned
 * and flipped at its own resolution (what the `image-edit` event reports, and the size of
 * the saved image). A fixed aspect is kept exactly by the height.
 */
export function cropOf(box: Rect, matrix: Matrix, natural: Size, aspect: number | null): Rect {
  const [a, b] = matrix;
  const scale = Math.hypot(a, b);
  const bounds = imageBounds(matrix, natural);
  const fullWidth = Math.round(bounds.width / scale);
  const fullHeight = Math.round(bounds.height / scale);
  const width = clamp(Math.round(box.width / scale), 1, fullWidth);
  const height = clamp(
    aspect ? Math.round(width / aspect) : Math.round(box.height / scale),
    1,
    fullHeight,
  );
  const x = clamp(Math.round((box.x - bounds.x) / scale), 0, fullWidth - width);
  const y = clamp(Math.round((box.y - bounds.y) / scale), 0, fullHeight - height);
  return { x, y, width, height };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), Math.max(low, high));
}
