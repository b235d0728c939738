import { html } from 'lit';

/**
 * The editor's looks, in its chunk (the element's own styles are part of the first load):
 * the uploader's tokens, so a page's theme and dark mode reach the dialog; its buttons are
 * the element's `.action` buttons. Cropper.js's crop box takes the accent (`--theme-color`).
 */
export const editorStyles = html`<style>
  .editor {
    box-sizing: border-box;
    width: min(52rem, calc(100vw - 1rem));
    max-height: calc(100dvh - 1rem);
    padding: clamp(0.75rem, 3vw, 1.25rem);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_background);
    color: var(--_text);
    font: var(--_font);
    overflow: auto;
  }
  .editor[open] { display: grid; gap: var(--_gap); }
  .editor::backdrop { background: rgb(15 23 42 / 0.6); }
  .editor h2 {
    margin: 0;
    font-size: 1.1rem;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
    unicode-bidi: plaintext;
  }
  .editor .help { margin: 0; font-size: 0.875rem; color: var(--_muted); }
  /* The picture has no direction: its stage is laid out left to right in every language
     (Cropper.js places the image from the left; right to left it landed off the canvas). */
  .editor .stage {
    border-radius: calc(var(--_radius) / 1.5);
    outline: none;
  }
  .editor .stage:focus-visible { box-shadow: var(--_focus); }
  .editor cropper-canvas {
    --theme-color: var(--_accent);
    display: block;
    height: min(60dvh, 28rem);
    border-radius: calc(var(--_radius) / 1.5);
    overflow: hidden;
    touch-action: none;
  }
  /* The crop box drawn clearly, and more so while the keyboard moves it. */
  .editor cropper-selection { outline: 2px solid var(--_accent); }
  .editor .stage:focus-visible cropper-selection { outline-width: 3px; }
  .editor .tools, .editor .end {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    align-items: center;
  }
  .editor .end { justify-content: flex-end; }
  .editor .aspect { display: inline-flex; gap: 0.4rem; align-items: center; font-size: 0.875rem; }
  .editor select {
    font: inherit;
    color: var(--_text);
    background: var(--_background);
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 1.5);
    padding: 0.3rem 0.5rem;
  }
  .editor select:focus-visible { outline: none; box-shadow: var(--_focus); }
  .editor button:disabled { opacity: 0.6; cursor: progress; }
</style>`;
