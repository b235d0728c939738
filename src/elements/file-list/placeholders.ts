import { html, nothing } from 'lit';
import { thumbHashToApproximateAspectRatio, thumbHashToDataURL } from 'thumbhash';
import type { FileRecord } from '../../api/types.js';

/**
 * An image's placeholder drawn in `<file-list>` (decisions.md, "Placeholders"): a chunk of
 * its own, loaded once a list has a file with a `placeholder`, so that pages whose lists
 * have none never load ThumbHash's decoder.
 */

interface Decoded {
  /** A PNG of the placeholder, about 32 px on its long side. */
  url: string;
  /** Width / height of the image, as near as ThumbHash keeps it. */
  aspect: number;
}

/** Each placeholder decoded once, whichever rows and renders show it. */
const decoded = new Map<string, Decoded | null>();

function decode(placeholder: string): Decoded | null {
  let found = decoded.get(placeholder);
  if (found === undefined) {
    try {
      const hash = Uint8Array.from(atob(placeholder), (char) => char.charCodeAt(0));
      found = { url: thumbHashToDataURL(hash), aspect: thumbHashToApproximateAspectRatio(hash) };
    } catch {
      // Not a ThumbHash after all: the row keeps its icon.
      found = null;
    }
    decoded.set(placeholder, found);
  }
  return found;
}

/**
 * The picture of a file with a placeholder, over its icon in its square thumbnail box: a
 * frame of the image's own aspect ratio (so nothing moves when the thumbnail arrives),
 * drawn with the placeholder at once and covered by the thumbnail once it has loaded: the
 * variant of the file at `url` that fits inside the box (40 px, in device pixels, as
 * the list's other thumbnails); none without a `url` (a private file). A thumbnail that fails is hidden: the placeholder
 * stays. A placeholder that does not decode leaves a square frame for the thumbnail alone.
 * Nothing for a file without a placeholder.
 */
export default function placeholderPicture(
  { placeholder }: Pick<FileRecord, 'placeholder'>,
  url: string | false | null,
) {
  if (!placeholder) return nothing;
  const side = Math.ceil(40 * devicePixelRatio);
  const { aspect, url: drawn } = decode(placeholder) ?? { aspect: 1, url: null };
  // Set as properties (the CSSOM's `cssText`), which a page's CSP does not refuse as it
  // would a `style` attribute. The cover hides the icon under the frame's margins.
  const cover = 'position:absolute;inset:0;background:inherit';
  const frame = [
    'position:absolute;inset:0;margin:auto',
    aspect >= 1 ? `width:100%;height:${100 / aspect}%` : `width:${aspect * 100}%;height:100%`,
    drawn ? `background:url("${drawn}") center/100% 100% no-repeat` : '',
  ].join(';');
  return html`<span .style=${cover}><span class="picture" .style=${frame}>${
    url
      ? html`<img src=${`${url}?w=${side}&h=${side}&fit=inside&format=auto`} alt="" loading="lazy"
          decoding="async" @error=${stepAside} />`
      : nothing
  }</span></span>`;
}

/** A thumbnail that fails is hidden, so the placeholder under it shows. */
function stepAside(event: Event): void {
  (event.target as HTMLImageElement).hidden = true;
}
