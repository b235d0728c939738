import { css } from 'lit';

/**
 * Public custom properties are read once, on :host, into private `--_*` tokens: the list's
 * own (`--file-list-*`), else the shared palette (`--filehost-*`, see shared/styles.ts).
 */
export const styles = css`
  :host {
    --_accent: var(--file-list-accent,var(--_fh-accent));
    --_text: var(--file-list-text,var(--_fh-text));
    --_muted: var(--file-list-muted,var(--_fh-muted));
    --_background: var(--file-list-background,var(--_fh-background));
    --_surface: var(--file-list-surface,var(--_fh-surface));
    --_border: var(--file-list-border,var(--_fh-border));
    --_error: var(--file-list-error,var(--_fh-error));
    --_radius: var(--file-list-radius,var(--_fh-radius));
    --_row-gap: var(--file-list-row-gap,0);
    --_row-height: var(--file-list-row-height,3.75rem);
    --_font: var(--file-list-font,var(--_fh-font));
    --_focus: var(--file-list-focus-ring,var(--_fh-focus));

    display: block;
    box-sizing: border-box;
    font: var(--_font);
    color: var(--_text);
    min-width: 0;
  }

  .base {
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_background);
    overflow: hidden;
    container-type: inline-size;
  }

  /* Rows are drawn in groups (see row-groups.ts): each group is laid out and painted alone. */
  .group {
    contain: layout paint style;
  }

  .item {
    display: grid;
    grid-template-columns: 2.5rem minmax(0, 1fr) auto;
    align-items: center;
    gap: 0.75rem;
    min-height: var(--_row-height);
    margin-block-end: var(--_row-gap);
    padding: 0.5rem 0.85rem;
    border-bottom: 1px solid var(--_border);
    background: var(--_background);
    cursor: pointer;
  }

  .item:hover {
    background: var(--_surface);
  }

  .item:focus-visible {
    outline: none;
    box-shadow: inset var(--_focus);
  }

  .info {
    display: grid;
    gap: 0.15rem;
    min-width: 0;
  }

  .name a {
    color: var(--_accent);
    text-decoration: none;
  }

  .name a:hover {
    text-decoration: underline;
  }

  /* A size, a media type and a status in one line: each run of it keeps its own direction
     ("6 B · application/pdf" inside Arabic words is not reordered into "B · … 6"). */
  .meta {
    unicode-bidi: plaintext;
    font-size: 0.825rem;
    color: var(--_muted);
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }

  .badge {
    display: inline-block;
    padding: 0 0.4rem;
    border-radius: 999px;
    background: color-mix(in srgb, var(--_accent) 15%, transparent);
    color: var(--_text);
    font-size: 0.75rem;
    font-weight: 600;
  }

  .copy,
  .more,
  .retry {
    padding: 0.3rem 0.7rem;
    border: 1px solid var(--_border);
    background: var(--_background);
    color: var(--_text);
    font-size: 0.85rem;
    white-space: nowrap;
  }

  .footer {
    display: grid;
    place-items: center;
    min-height: 3rem;
    padding: 0.5rem;
    color: var(--_muted);
    font-size: 0.875rem;
  }

  .message {
    display: grid;
    justify-items: center;
    gap: 0.4rem;
    padding: 2rem 1rem;
    text-align: center;
  }

  .message p {
    margin: 0;
  }

  .message .title {
    font-weight: 600;
  }

  .message .hint {
    color: var(--_muted);
    font-size: 0.9rem;
  }

  .error .title,
  .error .detail {
    color: var(--_error);
  }

  .code {
    font-family: ui-monospace, monospace;
    font-size: 0.8rem;
  }

  .skeleton .item:last-child {
    border-bottom: none;
  }

  .skeleton .info {
    gap: 0.5rem;
  }

  .skeleton .line {
    height: 0.7rem;
    border-radius: 999px;
  }

  .skeleton .line.short {
    width: 40%;
  }

  .skeleton .thumbnail,
  .skeleton .line {
    background: color-mix(in srgb, var(--_text) 10%, transparent);
    animation: pulse 1.2s ease-in-out infinite;
  }

  @keyframes pulse {
    50% {
      opacity: 0.5;
    }
  }

  @container (max-width: 24rem) {
    .item {
      grid-template-columns: 2.5rem minmax(0, 1fr);
    }
    .copy {
      grid-column: 2;
      justify-self: start;
    }
    .meta {
      white-space: normal;
    }
  }

  @media (prefers-reduced-motion: reduce) {
    .skeleton .thumbnail,
    .skeleton .line {
      animation: none;
    }
  }
`;
