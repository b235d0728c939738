import { css } from 'lit';

/**
 * Rules both elements need alike, and the palette they share. They read the same private
 * tokens (`--_surface`, `--_muted`, `--_radius`), which each element defines from its own
 * public property (`--file-uploader-accent`), else the shared one (`--filehost-accent`),
 * else the defaults below, for light and dark: one palette, written once.
 */
export const sharedStyles = css`
  :host {
    --_fh-accent: var(--filehost-accent,#2563eb);
    --_fh-on-accent: var(--filehost-on-accent,#ffffff);
    --_fh-text: var(--filehost-text,#0f172a);
    --_fh-muted: var(--filehost-muted,#475569);
    --_fh-background: var(--filehost-background,#ffffff);
    --_fh-surface: var(--filehost-surface,#f8fafc);
    --_fh-border: var(--filehost-border,#cbd5e1);
    --_fh-error: var(--filehost-error,#b91c1c);
    --_fh-success: var(--filehost-success,#15803d);
    --_fh-radius: var(--filehost-radius,0.75rem);
    --_fh-font: var(--filehost-font,inherit);
    /* Of the element's own accent (\`--_accent\`, each element's), in light and dark alike. */
    --_fh-focus: var(--filehost-focus-ring,0 0 0 3px color-mix(in srgb,var(--_accent) 45%,transparent));
  }

  @media (prefers-color-scheme: dark) {
    :host {
      --_fh-accent: var(--filehost-accent,#60a5fa);
      --_fh-on-accent: var(--filehost-on-accent,#0b1220);
      --_fh-text: var(--filehost-text,#e2e8f0);
      --_fh-muted: var(--filehost-muted,#94a3b8);
      --_fh-background: var(--filehost-background,#0f172a);
      --_fh-surface: var(--filehost-surface,#111c31);
      --_fh-border: var(--filehost-border,#334155);
      --_fh-error: var(--filehost-error,#fca5a5);
      --_fh-success: var(--filehost-success,#86efac);
    }
  }

  :host([hidden]) {
    display: none;
  }

  /* Its language is on its way (see followLang): its place is kept, its English never shown. */
  :host([translating]) {
    visibility: hidden;
  }

  *,
  *::before,
  *::after {
    box-sizing: inherit;
  }

  .thumbnail {
    position: relative;
    width: 2.5rem;
    height: 2.5rem;
    border-radius: calc(var(--_radius) / 2);
    background: var(--_surface);
    display: grid;
    place-items: center;
    overflow: hidden;
    color: var(--_muted);
  }

  /* The picture covers the icon; a picture that fails to load is hidden, the icon stays. */
  .thumbnail img {
    position: absolute;
    inset: 0;
    width: 100%;
    height: 100%;
    object-fit: cover;
  }

  .thumbnail svg {
    width: 1.4rem;
    height: 1.4rem;
  }

  .info {
    display: grid;
    min-width: 0;
  }

  .name {
    font-weight: 600;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
    unicode-bidi: plaintext;
  }

  /* Buttons, links and lists as both elements draw them. */
  button {
    font: inherit;
    cursor: pointer;
    border-radius: calc(var(--_radius) / 1.5);
  }

  button:focus-visible,
  a:focus-visible {
    outline: none;
    box-shadow: var(--_focus);
  }

  ul {
    list-style: none;
    margin: 0;
    padding: 0;
  }

  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
`;
