import { css } from 'lit';

/**
 * Rules both elements need alike. They read the same private tokens (`--_surface`,
 * `--_muted`, `--_radius`), which each element defines from its own public properties.
 */
export const sharedStyles = css`
  :host([hidden]) {
    display: none;
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
