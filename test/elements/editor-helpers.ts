import { fixture, html, waitUntil } from '@open-wc/testing';
import '../../src/index.js';
import type { FileUploaderElement } from '../../src/elements/file-uploader/file-uploader.js';
import { auditInBothSchemes } from './axe-audit.js';
import { project } from './helpers.js';
import { halves } from './image-helpers.js';

/** What the image editor's tests share: the element, its dialog, and waiting for them. */

/**
 * How long an editor test waits for its upload's event, from before the pick: images made,
 * shown, edited and sent outlasted 30 s in Firefox and WebKitGTK on a machine loaded as CI's
 * (the tests themselves have 90 s, web-test-runner.cross.config.mjs).
 */
export const UPLOAD_EVENT_MS = 80_000;

export async function uploader(
  attributes: Record<string, string> = {},
): Promise<FileUploaderElement> {
  const p = await project();
  const root = await fixture<HTMLElement>(
    html`<div><file-uploader endpoint=${p.endpoint} api-key=${p.publishableKey} image-editor></file-uploader></div>`,
  );
  const element = root.querySelector('file-uploader') as FileUploaderElement;
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  await element.updateComplete;
  return element;
}

export function shadow(element: FileUploaderElement): ShadowRoot {
  return element.shadowRoot as ShadowRoot;
}

export function dialogOf(element: FileUploaderElement): HTMLDialogElement | null {
  return shadow(element).querySelector('dialog.editor');
}

/** The element focused, through shadow roots. */
export function focused(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

export async function jpeg(name: string, width: number, height: number): Promise<File> {
  return new File([await halves(width, height)], name, { type: 'image/jpeg' });
}

/**
 * Whether the editor's module has run: it defines Cropper.js's elements as it first opens.
 * (This bundle inlines the chunks; which scripts the script tag fetches when is watched in
 * test/e2e/script-tag.test.ts.)
 */
export function editorLoaded(): boolean {
  return customElements.get('cropper-canvas') !== undefined;
}

/** The open editor, its image loaded and its crop box placed. */
export async function openedEditor(element: FileUploaderElement): Promise<HTMLDialogElement> {
  await waitUntil(() => dialogOf(element)?.open, 'the editor opens', { timeout: 15_000 });
  const dialog = dialogOf(element) as HTMLDialogElement;
  await waitUntil(
    () => (dialog.querySelector('cropper-selection') as HTMLElement & { width: number })?.width > 0,
    'the crop box is placed',
    { timeout: 15_000 },
  );
  return dialog;
}

export function button(root: ParentNode, words: string): HTMLButtonElement {
  const found = [...root.querySelectorAll('button')].find((b) => b.textContent?.trim() === words);
  if (!found) throw new Error(`no button ${words}`);
  return found;
}

export function audit(root: Element, state: string): Promise<void> {
  return auditInBothSchemes(root, state);
}
