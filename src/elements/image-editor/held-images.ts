import { html, type ReactiveControllerHost, render } from 'lit';
import { cleanName } from '../../api/names.js';
import { en } from '../shared/en.js';
import { formatBytes } from '../shared/format.js';
import type { EditorText, UploaderTexts } from '../shared/translation.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';
import { accepts } from './accepts.js';
import { parseCropAspect } from './crop-aspect.js';

/**
 * `<file-uploader image-editor>`: images wait on a row of their own with Edit and Upload
 * instead of going to the upload engine at once; other files go as usual. Edit opens the
 * editor (`image-editor.ts`, with Cropper.js: fetched only then); Save hands the edited
 * image to the uploads (where `max-image-width`/`-height` still apply, and
 * `no-auto-upload` still holds it in the queue), Upload the original as it is. When one
 * image is added alone, the editor opens by itself.
 *
 * This module is the feature's loader, fetched when the element first holds an image or
 * `editImage` is called: the rows and their English words are here, not in the first load,
 * which carries only the attribute and the hand-over to this module.
 */

/** What the browser decodes (GIF: its first frame) and the editor can therefore open. */
const EDITABLE = /^image\/(jpeg|png|webp|avif|gif)$/;

/** The English words of the editor (other languages ship whole). */
const words: Pick<UploaderTexts, EditorText> = {
  editorWaiting: 'Ready to edit or upload',
  editorEdit: 'Edit',
  editorEditLabel: (name) => `Edit ${name}`,
  editorUpload: 'Upload',
  editorUploadLabel: (name) => `Upload ${name} as it is`,
  editorTitle: (name) => `Edit ${name}`,
  editorHelp:
    'Arrow keys move the crop area; Shift with the arrow keys resizes it. Escape cancels.',
  editorCropArea: 'Crop area',
  editorAspect: 'Shape',
  editorFree: 'Free',
  editorRotateLeft: 'Rotate left',
  editorRotateRight: 'Rotate right',
  editorFlipX: 'Flip horizontally',
  editorFlipY: 'Flip vertically',
  editorZoomIn: 'Zoom in',
  editorZoomOut: 'Zoom out',
  editorReset: 'Reset',
  editorSave: 'Save',
  editorAnnounce: (degrees, width, height) =>
    `Rotated ${degrees} degrees. Crop area ${width} by ${height} pixels.`,
  formHeld: 'Edit or upload the images waiting first.',
  editorUnreadable: (name) => `${name} could not be opened for editing. Upload it as it is.`,
};

/** Adds the editor's words to the English translation (a call, not an import's side effect). */
export function fillEditor(): void {
  Object.assign(en.uploader, words);
}

/** What the loader needs of its element. */
export interface EditorHost extends HTMLElement, ReactiveControllerHost {
  readonly texts: FileUploaderStrings;
  readonly locale: string;
  readonly renderRoot: HTMLElement | DocumentFragment;
  multiple: boolean;
  disabled: boolean;
  accept: string;
  imageQuality: number | null;
}

/**
 * The element's upload controller: where files go once they no longer wait, and where the
 * images waiting are listed (the element's `files`, its form's validity), and let go of.
 */
export interface Uploads {
  addFiles(files: File[]): void;
  /** The element's views of the images waiting (its `FileView`s: see `#list`). */
  held: { id: string }[];
}

/**
 * Files the element hands over (`addFiles` with `image-editor`): images wait, the rest go
 * (an image of a type `accept` refuses goes too, and is refused at once as any file is).
 * One file alone opens the editor by itself: a new image, or one already waiting
 * (`editImage(file)` comes this way).
 */
export function hold(host: EditorHost, files: File[], uploads: Uploads): void {
  const held = heldImagesOf(host, uploads);
  // Without `multiple` the element has just let go of every file, the images waiting too.
  held.sync();
  const images = files.filter((file) => EDITABLE.test(file.type) && accepts(host.accept, file));
  const others = files.filter((file) => !images.includes(file));
  if (others.length > 0) uploads.addFiles(others);
  const waiting = images.map((file) => held.find(file) ?? held.add(file));
  if (files.length === 1 && waiting[0]) void held.edit(waiting[0]);
}

interface Waiting {
  /** Its id in the element's `files`. */
  id: string;
  file: File;
  name: string;
  preview: string;
}

const everyHeld = new WeakMap<EditorHost, HeldImages>();

function heldImagesOf(host: EditorHost, uploads: Uploads): HeldImages {
  let held = everyHeld.get(host);
  if (!held) {
    fillEditor();
    held = new HeldImages(host, uploads);
    everyHeld.set(host, held);
  }
  return held;
}

/**
 * The images of one element waiting on their rows: drawn in a box of their own before the
 * element's live region (its template does not know of them, so the first load carries no
 * place for them), again after each of the element's updates.
 */
class HeldImages {
  readonly #host: EditorHost;
  readonly #uploads: Uploads;
  readonly #box = document.createElement('div');
  #waiting: Waiting[] = [];
  /** The list last given to the element: another one there means it let go of some. */
  #listed: { id: string }[] = [];
  #next = 0;
  /** The editor open now: one at a time. */
  #editing = false;

  constructor(host: EditorHost, uploads: Uploads) {
    this.#host = host;
    this.#uploads = uploads;
    this.#box.className = 'held-images';
    host.addController({
      hostUpdated: () => {
        this.sync();
        this.draw();
      },
    });
  }

  /** Lets go of the images the element let go of (a form reset, `removeFile`, a new choice). */
  sync(): void {
    const listed = this.#uploads.held;
    if (listed === this.#listed) return;
    for (const entry of this.#waiting)
      if (!listed.some((view) => view.id === entry.id)) URL.revokeObjectURL(entry.preview);
    this.#waiting = this.#waiting.filter((entry) => listed.some((view) => view.id === entry.id));
    this.#list();
  }

  /**
   * Tells the element which images wait (its `files`, its form's validity): each as the
   * element's `FileView` of a file not sent, status `waiting`, written out here since the
   * editor sits beside the upload engine and may not import its module (the layers in
   * .dependency-cruiser.cjs).
   */
  #list(): void {
    this.#listed = this.#uploads.held = this.#waiting.map(({ id, file, name, preview }) => ({
      id,
      name,
      size: file.size,
      type: file.type,
      thumbnail: preview,
      status: 'waiting',
      bytesUploaded: 0,
      fraction: 0,
      failure: null,
      record: null,
      retryAt: null,
    }));
    this.#host.requestUpdate();
  }

  find(file: File): Waiting | undefined {
    return this.#waiting.find((entry) => entry.file === file);
  }

  add(file: File): Waiting {
    const entry = {
      id: `held-${this.#next++}`,
      file,
      name: cleanName(file.name) || 'image',
      preview: URL.createObjectURL(file),
    };
    this.#waiting.push(entry);
    this.#list();
    this.draw();
    return entry;
  }

  async edit(entry: Waiting): Promise<void> {
    if (this.#editing || this.#host.disabled) return;
    this.#editing = true;
    const host = this.#host;
    try {
      const { openEditor } = await import('./image-editor.js');
      const result = await openEditor(host, entry.file, {
        aspects: parseCropAspect(host.getAttribute('crop-aspect')),
        quality: Math.min(1, host.imageQuality ?? 0.85),
      });
      if (!result) {
        this.#focusEdit(entry);
        return;
      }
      const { file, crop, rotate, flipX, flipY } = result;
      host.dispatchEvent(
        new CustomEvent('image-edit', {
          detail: { file, crop, rotate, flipX, flipY },
          bubbles: true,
          composed: true,
        }),
      );
      this.#drop(entry);
      this.#uploads.addFiles([file]);
      // The row is gone to the uploads: the element takes the focus (its first control).
      host.focus();
    } catch (error) {
      // Not fetched (offline, not deployed), or not an image after all: it waits, to
      // upload as it is.
      console.error(error);
      this.#say(host.texts.editorUnreadable(entry.name));
      this.#focusEdit(entry);
    } finally {
      this.#editing = false;
    }
  }

  #upload(entry: Waiting): void {
    this.#drop(entry);
    this.#uploads.addFiles([entry.file]);
  }

  #drop(entry: Waiting): void {
    URL.revokeObjectURL(entry.preview);
    this.#waiting = this.#waiting.filter((other) => other !== entry);
    this.#list();
    this.draw();
  }

  #focusEdit(entry: Waiting): void {
    this.draw();
    this.#box.querySelector<HTMLElement>(`[data-held="${entry.id}"] .edit`)?.focus();
  }

  #say(text: string): void {
    const region = this.#host.renderRoot.querySelector('[role=status]');
    if (region) region.textContent = text;
  }

  draw(): void {
    const region = this.#host.renderRoot.querySelector('.base > [role=status]');
    if (region && region.previousElementSibling !== this.#box) region.before(this.#box);
    const t = this.#host.texts;
    const locale = this.#host.locale;
    const disabled = this.#host.disabled;
    render(
      this.#waiting.length === 0
        ? html``
        : html`<ul part="list" class="held" aria-label=${t.fileListLabel}>
            ${this.#waiting.map(
              (
                entry,
              ) => html`<li part="file" class="file" data-status="waiting" data-held=${entry.id}>
                <span part="thumbnail" class="thumbnail" aria-hidden="true"><img src=${entry.preview} alt="" /></span>
                <div class="info">
                  <span part="name" class="name" title=${entry.name}>${entry.name}</span>
                  <span class="meta">${formatBytes(entry.file.size, locale)} · <span class="state">${t.editorWaiting}</span></span>
                </div>
                <div class="actions">
                  <button part="action" class="action edit" type="button" ?disabled=${disabled}
                    aria-label=${t.editorEditLabel(entry.name)} @click=${() => this.edit(entry)}>${t.editorEdit}</button>
                  <button part="action" class="action primary" type="button" ?disabled=${disabled}
                    aria-label=${t.editorUploadLabel(entry.name)} @click=${() => this.#upload(entry)}>${t.editorUpload}</button>
                  <button part="action" class="action" type="button"
                    aria-label=${t.removeLabel(entry.name)} @click=${() => this.#drop(entry)}>${t.remove}</button>
                </div>
              </li>`,
            )}
          </ul>`,
      this.#box,
      { host: this.#host },
    );
  }
}
