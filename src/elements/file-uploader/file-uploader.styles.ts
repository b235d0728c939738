import { css } from 'lit';

/**
 * Public custom properties are read once, on :host, into private `--_*` tokens: the
 * uploader's own (`--file-uploader-*`), else the shared palette (`--filehost-*`, with the
 * light and dark defaults, see shared/styles.ts). Every rule below reads only the tokens.
 */
export const styles = css`
  :host {
    --_accent: var(--file-uploader-accent,var(--_fh-accent));
    --_on-accent: var(--file-uploader-on-accent,var(--_fh-on-accent));
    --_text: var(--file-uploader-text,var(--_fh-text));
    --_muted: var(--file-uploader-muted,var(--_fh-muted));
    --_background: var(--file-uploader-background,var(--_fh-background));
    --_surface: var(--file-uploader-surface,var(--_fh-surface));
    --_border: var(--file-uploader-border,var(--_fh-border));
    --_error: var(--file-uploader-error,var(--_fh-error));
    --_success: var(--file-uploader-success,var(--_fh-success));
    --_radius: var(--file-uploader-radius,var(--_fh-radius));
    --_gap: var(--file-uploader-gap,0.75rem);
    --_font: var(--file-uploader-font,var(--_fh-font));
    --_focus: var(--file-uploader-focus-ring,var(--_fh-focus));

    display: block;
    box-sizing: border-box;
    font: var(--_font);
    color: var(--_text);
    min-width: 0;
  }

  .base {
    display: grid;
    /* One column as wide as the element: rows skipped off screen (content-visibility)
       remember the width they were last drawn at, which must not widen it. */
    grid-template-columns: minmax(0, 1fr);
    gap: var(--_gap);
    /* Narrow or wide is the element's own width, not the window's. */
    container-type: inline-size;
  }

  .dropzone {
    display: grid;
    justify-items: center;
    gap: 0.35rem;
    padding: 1.5rem 1rem;
    border: 2px dashed var(--_border);
    border-radius: var(--_radius);
    background: var(--_surface);
    text-align: center;
    transition:
      border-color 120ms ease,
      background-color 120ms ease;
  }

  :host([dragging]) .dropzone {
    border-color: var(--_accent);
    border-style: solid;
    background: color-mix(in srgb, var(--_accent) 12%, var(--_surface));
  }

  /* Disabled reads as disabled without fading the text below a readable contrast. */
  :host([disabled]) .dropzone {
    border-style: dotted;
    background: transparent;
  }

  :host([disabled]) .icon {
    opacity: 0.45;
  }

  :host([disabled]) .browse {
    color: var(--_muted);
    text-decoration: none;
  }

  .icon {
    width: 2rem;
    height: 2rem;
    color: var(--_accent);
  }

  .prompt {
    margin: 0;
    font-size: 1rem;
  }

  .hint {
    margin: 0;
    font-size: 0.85rem;
    color: var(--_muted);
  }

  button:disabled {
    cursor: not-allowed;
  }

  .browse {
    padding: 0.1rem 0.25rem;
    border: none;
    background: none;
    color: var(--_accent);
    font-weight: 600;
    text-decoration: underline;
    text-underline-offset: 0.2em;
  }

  .summary {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5rem 1rem;
    font-size: 0.9rem;
    color: var(--_muted);
  }

  .summary .bar {
    flex: 1 1 10rem;
  }

  .action {
    padding: 0.35rem 0.75rem;
    border: 1px solid var(--_border);
    background: var(--_background);
    color: var(--_text);
    font-size: 0.875rem;
  }

  .action.primary {
    border-color: var(--_accent);
    background: var(--_accent);
    color: var(--_on-accent);
  }

  .file + .file {
    margin-block-start: 0.5rem;
  }

  /* Rows out of view are neither laid out nor painted while 200 bars move (0.95x the time
     of a 200-file upload, measured taking turns); their last size holds their place. */
  .file {
    contain: layout paint style;
    content-visibility: auto;
    contain-intrinsic-size: auto 3.8rem;
    display: grid;
    grid-template-columns: 2.5rem minmax(0, 1fr) auto;
    align-items: center;
    gap: 0.75rem;
    padding: 0.6rem 0.75rem;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_background);
  }

  .file[data-status='failed'],
  .file[data-status='rejected'] {
    border-color: color-mix(in srgb, var(--_error) 60%, var(--_border));
  }

  .info {
    display: grid;
    gap: 0.2rem;
    min-width: 0;
  }

  .name a {
    color: inherit;
  }

  /* A size, a media type and a status in one line: each run of it keeps its own direction
     ("6 B · application/pdf" inside Arabic words is not reordered into "B · … 6"). */
  .meta {
    unicode-bidi: plaintext;
    font-size: 0.825rem;
    color: var(--_muted);
  }

  .file[data-status='done'] .state {
    color: var(--_success);
  }

  .error {
    margin: 0;
    font-size: 0.825rem;
    color: var(--_error);
    overflow-wrap: anywhere;
  }

  .code {
    font-family: ui-monospace, monospace;
    font-size: 0.75rem;
    opacity: 0.8;
  }

  .bar {
    height: 0.375rem;
    border-radius: 999px;
    background: color-mix(in srgb, var(--_border) 60%, transparent);
    overflow: hidden;
  }

  /* Scaled, not sized: a transform is drawn by the compositor without laying the row out
     again, which is what 200 bars moving at once cost. */
  .bar > span {
    display: block;
    height: 100%;
    background: var(--_accent);
    transform: scaleX(var(--fraction,0));
    transform-origin: left;
    transition: transform 100ms linear;
  }

  .bar:dir(rtl) > span {
    transform-origin: right;
  }

  .file[data-status='done'] .bar > span {
    background: var(--_success);
  }

  .actions {
    display: flex;
    gap: 0.35rem;
  }

  @container (max-width: 26rem) {
    .file {
      grid-template-columns: 2.5rem minmax(0, 1fr);
    }
    .actions {
      grid-column: 2;
    }
  }

  @media (prefers-reduced-motion: reduce) {
    .dropzone,
    .bar > span {
      transition: none;
    }
  }
`;
