import {
  CropperCanvas,
  CropperHandle,
  CropperImage,
  CropperSelection,
  CropperShade,
} from 'cropperjs';
import { html, nothing, render } from 'lit';
import { Announcer } from '../shared/announcer.js';
import { formatCount } from '../shared/format.js';
import type { AspectChoice } from './crop-aspect.js';
import {
  cropOf,
  fitMatrix,
  flip,
  imageBounds,
  isInside,
  largestInside,
  type Matrix,
  type Orientation,
  type Rect,
  type Size,
  stepBox,
  turn,
  UPRIGHT,
  zoomAbout,
} from './geometry.js';
import { editorStyles } from './image-editor.styles.js';
import { previewOf, type SavedImage, saveEdit } from './save-image.js';

/**
 * The image editor: a modal dialog (`<dialog>` opened with `showModal`, so the page behind
 * it is inert and focus stays in it) over `<file-uploader>`, in its shadow root. The image
 * and the crop box are Cropper.js 2's custom elements (mouse, touch: drag, pinch, wheel);
 * turning, flipping, zooming and the keyboard are ours, on the matrix Cropper.js draws
 * with (`geometry.ts`), so that the saved image is exactly what was shown. Fetched only
 * when an editor opens, with Cropper.js.
 */

/** What the editor needs of its element. */
export interface EditorHost extends HTMLElement {
  readonly texts: import('../shared/uploader-strings.js').FileUploaderStrings;
  readonly locale: string;
  readonly renderRoot: HTMLElement | DocumentFragment;
}

export interface EditResult extends SavedImage, Orientation {}

/** Cropper.js's elements, defined once (a page that defined them first keeps its own). */
let defined = false;
function defineCropper(): void {
  if (defined) return;
  defined = true;
  for (const element of [
    CropperCanvas,
    CropperImage,
    CropperSelection,
    CropperHandle,
    CropperShade,
  ])
    element.$define();
}

const RESIZE_HANDLES = ['n', 'e', 's', 'w', 'ne', 'nw', 'se', 'sw'] as const;
/** Room around the image for the crop box's handles, in the canvas's pixels. */
const MARGIN = 16;

/**
 * Opens the editor on `file` and settles when it closes: the edited image once saved,
 * null when cancelled (Escape, Cancel). Throws for a file the browser cannot decode.
 */
export async function openEditor(
  host: EditorHost,
  file: File,
  options: { aspects: AspectChoice[]; quality: number },
): Promise<EditResult | null> {
  defineCropper();
  // Decoded once, upright: shown from it, saved from it. Not an image after all: thrown.
  const bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  try {
    const preview = await previewOf(file, bitmap);
    return await new ImageEditor(host, file, bitmap, preview, options).opened;
  } finally {
    bitmap.close();
  }
}

class ImageEditor {
  readonly opened: Promise<EditResult | null>;
  readonly #host: EditorHost;
  readonly #file: File;
  readonly #aspects: AspectChoice[];
  readonly #quality: number;
  readonly #box = document.createElement('div');
  readonly #bitmap: ImageBitmap;
  /** What the editor shows: the file, or a smaller copy of a large one. */
  readonly #url: string;
  readonly #announcer: Announcer;
  #dialog: HTMLDialogElement | null = null;
  #aspect: AspectChoice;
  #orientation: Orientation = UPRIGHT;
  #natural: Size = { width: 0, height: 0 };
  /** While the editor sets the image's matrix itself: its own check of the crop box waits. */
  #fitting = false;
  #saving = false;
  #finish: (result: EditResult | null) => void = () => {};

  constructor(
    host: EditorHost,
    file: File,
    bitmap: ImageBitmap,
    url: string,
    options: { aspects: AspectChoice[]; quality: number },
  ) {
    this.#host = host;
    this.#file = file;
    this.#bitmap = bitmap;
    this.#aspects = options.aspects;
    this.#aspect = options.aspects[0] ?? { label: 'free', ratio: null };
    this.#quality = options.quality;
    this.#url = url;
    this.#announcer = new Announcer({ renderRoot: this.#box });
    this.opened = new Promise((resolve) => {
      this.#finish = resolve;
    });
    this.#box.className = 'image-editor';
    host.renderRoot.append(this.#box);
    this.#draw();
    const dialog = this.#box.querySelector('dialog');
    if (!dialog) throw new Error('The editor did not draw.');
    this.#dialog = dialog;
    dialog.addEventListener('cancel', (event) => {
      // Escape: cancel the edit (the dialog closes the editor's way, not the browser's).
      event.preventDefault();
      this.#close(null);
    });
    dialog.showModal();
    this.#stage()?.focus();
    void this.#image()
      .$ready()
      .then((image) => {
        this.#natural = { width: image.naturalWidth, height: image.naturalHeight };
        this.#fit();
      })
      .catch(() => this.#close(null));
  }

  #canvas(): CropperCanvas {
    return this.#box.querySelector('cropper-canvas') as CropperCanvas;
  }

  #image(): CropperImage {
    return this.#box.querySelector('cropper-image') as CropperImage;
  }

  #selection(): CropperSelection {
    return this.#box.querySelector('cropper-selection') as CropperSelection;
  }

  #stage(): HTMLElement | null {
    return this.#box.querySelector('.stage');
  }

  #matrix(): Matrix {
    return this.#image().$getTransform() as unknown as Matrix;
  }

  #canvasSize(): Size {
    const canvas = this.#canvas();
    return { width: canvas.offsetWidth, height: canvas.offsetHeight };
  }

  #selectionRect(): Rect {
    const { x, y, width, height } = this.#selection();
    return { x, y, width, height };
  }

  /** The image whole and centered, turned and flipped as chosen; the crop box as large as fits. */
  #fit(): void {
    const matrix = fitMatrix(this.#orientation, this.#natural, this.#canvasSize(), MARGIN);
    this.#fitting = true;
    this.#image().$setTransform(...matrix);
    this.#fitting = false;
    this.#setBox(largestInside(imageBounds(matrix, this.#natural), this.#aspect.ratio));
    this.#say();
  }

  #setBox(box: Rect): void {
    this.#fitting = true;
    this.#selection().$change(
      box.x,
      box.y,
      box.width,
      box.height,
      this.#aspect.ratio ?? Number.NaN,
    );
    this.#fitting = false;
  }

  /** Says the turn and the crop's size (in the image's pixels), as it is now. */
  #say(): void {
    if (this.#natural.width === 0) return;
    const crop = cropOf(this.#selectionRect(), this.#matrix(), this.#natural, this.#aspect.ratio);
    const { locale, texts } = this.#host;
    this.#announcer.say(
      texts.editorAnnounce(
        formatCount(this.#orientation.rotate, locale),
        formatCount(crop.width, locale),
        formatCount(crop.height, locale),
      ),
    );
  }

  /** The image may not be moved or zoomed so that the crop box leaves it. */
  #onTransform = (event: Event): void => {
    if (this.#fitting) return;
    const { matrix } = (event as CustomEvent<{ matrix: Matrix }>).detail;
    if (!isInside(this.#selectionRect(), imageBounds(matrix, this.#natural)))
      event.preventDefault();
  };

  /** Nor may the crop box be dragged or stretched off the image. */
  #onSelectionChange = (event: Event): void => {
    if (this.#fitting) return;
    const box = (event as CustomEvent<Rect>).detail;
    if (!isInside(box, imageBounds(this.#matrix(), this.#natural))) event.preventDefault();
  };

  #onActionEnd = (): void => this.#say();

  /** Arrows move the crop box, Shift with arrows resizes it; Alt moves by a pixel. */
  #onKey = (event: KeyboardEvent): void => {
    const steps: Record<string, [number, number]> = {
      ArrowLeft: [-1, 0],
      ArrowRight: [1, 0],
      ArrowUp: [0, -1],
      ArrowDown: [0, 1],
    };
    const direction = steps[event.key];
    if (!direction || this.#natural.width === 0) return;
    event.preventDefault();
    const bounds = imageBounds(this.#matrix(), this.#natural);
    const size = event.altKey
      ? 1
      : Math.max(1, Math.round(Math.min(bounds.width, bounds.height) / 50));
    const [x, y] = direction;
    const step = event.shiftKey ? { dw: x * size, dh: y * size } : { dx: x * size, dy: y * size };
    this.#setBox(stepBox(this.#selectionRect(), bounds, step, this.#aspect.ratio));
    this.#say();
  };

  #turn(turns: 1 | -1): void {
    this.#orientation = turn(this.#orientation, turns);
    this.#fit();
  }

  #flip(axis: 'x' | 'y'): void {
    this.#orientation = flip(this.#orientation, axis);
    this.#fit();
  }

  /** Zooms about the crop box's center, so what is being cropped stays in view. */
  #zoom(factor: number): void {
    const box = this.#selectionRect();
    const center = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    const matrix = zoomAbout(this.#matrix(), factor, center, this.#natural);
    const fitted = fitMatrix(this.#orientation, this.#natural, this.#canvasSize(), MARGIN);
    // No smaller than the whole image in view, and no closer than one image pixel to four
    // of the screen's.
    const scale = Math.hypot(matrix[0], matrix[1]);
    if (scale < Math.hypot(fitted[0], fitted[1]) - 1e-9 || scale > 4) return;
    if (!isInside(box, imageBounds(matrix, this.#natural))) return;
    this.#image().$setTransform(...matrix);
    this.#say();
  }

  #reset(): void {
    this.#orientation = UPRIGHT;
    this.#aspect = this.#aspects[0] ?? this.#aspect;
    this.#draw();
    this.#fit();
  }

  #choose(event: Event): void {
    const index = Number((event.target as HTMLSelectElement).value);
    this.#aspect = this.#aspects[index] ?? this.#aspect;
    this.#draw();
    this.#setBox(largestInside(imageBounds(this.#matrix(), this.#natural), this.#aspect.ratio));
    this.#say();
  }

  async #save(): Promise<void> {
    if (this.#saving || this.#natural.width === 0) return;
    this.#saving = true;
    this.#draw();
    try {
      const saved = await saveEdit(
        this.#file,
        this.#bitmap,
        {
          matrix: this.#matrix(),
          natural: this.#natural,
          box: this.#selectionRect(),
          aspect: this.#aspect.ratio,
        },
        this.#quality,
      );
      this.#close({ ...saved, ...this.#orientation });
    } catch (error) {
      // A browser that cannot draw or write it: the image stays, to upload as it is.
      console.error(error);
      this.#close(null);
    }
  }

  #close(result: EditResult | null): void {
    this.#dialog?.close();
    this.#box.remove();
    URL.revokeObjectURL(this.#url);
    this.#finish(result);
  }

  #draw(): void {
    const t = this.#host.texts;
    const ratio = this.#aspect.ratio;
    const button = (label: string, run: () => void, extra = '') =>
      html`<button class="action ${extra}" type="button" ?disabled=${this.#saving} @click=${run}>${label}</button>`;
    render(
      html`${editorStyles}<dialog class="editor" dir=${t.$dir} aria-labelledby="editor-title"
        aria-describedby="editor-help">
        <h2 id="editor-title">${t.editorTitle(this.#file.name)}</h2>
        <p id="editor-help" class="help">${t.editorHelp}</p>
        <div class="stage" dir="ltr" role="application" tabindex="0" aria-label=${t.editorCropArea}
          aria-describedby="editor-help" @keydown=${this.#onKey}>
          <cropper-canvas background @actionend=${this.#onActionEnd}>
            <cropper-image src=${this.#url} alt=${this.#file.name} scalable translatable
              @transform=${this.#onTransform}></cropper-image>
            <cropper-shade></cropper-shade>
            <cropper-handle action="move" plain></cropper-handle>
            <cropper-selection movable resizable outlined aspect-ratio=${ratio ?? nothing}
              @change=${this.#onSelectionChange}>
              <cropper-handle action="move" theme-color="rgba(255, 255, 255, 0.2)"></cropper-handle>
              ${RESIZE_HANDLES.map((side) => html`<cropper-handle action=${`${side}-resize`}></cropper-handle>`)}
            </cropper-selection>
          </cropper-canvas>
        </div>
        <div class="tools">
          ${
            this.#aspects.length > 1
              ? html`<label class="aspect">${t.editorAspect}
                  <select @change=${(event: Event) => this.#choose(event)} ?disabled=${this.#saving}>
                    ${this.#aspects.map(
                      (choice, index) =>
                        html`<option value=${index} ?selected=${choice === this.#aspect}>${
                          choice.ratio ? choice.label : t.editorFree
                        }</option>`,
                    )}
                  </select></label>`
              : nothing
          }
          ${button(t.editorRotateLeft, () => this.#turn(-1))}
          ${button(t.editorRotateRight, () => this.#turn(1))}
          ${button(t.editorFlipX, () => this.#flip('x'))}
          ${button(t.editorFlipY, () => this.#flip('y'))}
          ${button(t.editorZoomIn, () => this.#zoom(1.25))}
          ${button(t.editorZoomOut, () => this.#zoom(0.8))}
          ${button(t.editorReset, () => this.#reset())}
        </div>
        <div class="end">
          ${button(t.cancel, () => this.#close(null))}
          ${button(t.editorSave, () => void this.#save(), 'primary')}
        </div>
        <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>
      </dialog>`,
      this.#box,
    );
  }
}
