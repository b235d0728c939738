/**
 * Images made smaller before they leave the device (`max-image-width`, `max-image-height`,
 * `image-quality`, `image-type`), and the small previews of chosen images in their rows.
 * Fetched only by pages that set one of those, or once an image is chosen.
 *
 * Each image is decoded, turned upright (its EXIF orientation applied), scaled to fit and
 * encoded again, in a worker, one image at a time: a 50-megapixel photo decodes to 200 MB
 * of pixels, and one at a time is what keeps a phone from running out of memory, while the
 * worker keeps the page responsive. Encoding again writes none of the original's metadata:
 * EXIF, GPS position included, is gone. The original is kept when it already fits and
 * encoding it again would not make it smaller; then it keeps its metadata too.
 */

export interface ImageOptions {
  maxWidth: number | null;
  maxHeight: number | null;
  /** 0 to 1, as the canvas takes it. */
  quality: number;
  /** The media type to write, or null for the original's (JPEG for types a canvas cannot write). */
  type: string | null;
}

/** What the browser can decode and write back: other images (GIF, SVG, HEIC) are sent as they are. */
const SHRINKABLE = /^image\/(jpeg|png|webp|bmp)$/;

interface Encoded {
  blob: Blob;
  /** Whether the image was larger than the bounds (then the smaller one is always taken). */
  scaled: boolean;
}

/**
 * Decodes, orients, scales and encodes one image. It runs in the worker as its own source
 * text (see `worker`), so it uses nothing from outside its body but the browser's globals.
 */
export async function encodeImage(file: Blob, options: ImageOptions & { type: string }) {
  const source = await createImageBitmap(file, { imageOrientation: 'from-image' });
  const scale = Math.min(
    1,
    (options.maxWidth ?? Number.POSITIVE_INFINITY) / source.width,
    (options.maxHeight ?? Number.POSITIVE_INFINITY) / source.height,
  );
  let bitmap = source;
  if (scale < 1) {
    // The browser's own resampling (`high`) looks better than drawing a large image small.
    bitmap = await createImageBitmap(source, {
      resizeWidth: Math.max(1, Math.round(source.width * scale)),
      resizeHeight: Math.max(1, Math.round(source.height * scale)),
      resizeQuality: 'high',
    });
    source.close();
  }
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('No 2D canvas in this browser.');
    context.drawImage(bitmap, 0, 0);
    const blob = await canvas.convertToBlob({ type: options.type, quality: options.quality });
    return { blob, scaled: scale < 1 } satisfies Encoded;
  } finally {
    bitmap.close();
  }
}

let worker: Worker | null = null;
/** False once the page has refused a worker: ask no more. */
let workersAllowed = true;
let idleTimer: ReturnType<typeof setTimeout> | undefined;
/** One image at a time, whoever asks (two drops at once share the worker). */
let line: Promise<unknown> = Promise.resolve();
/** An idle worker is let go after this long; the next image starts another. */
const WORKER_IDLE_MS = 10_000;
const NO_WORKER = 'no worker';

/**
 * A worker made from `encodeImage`'s own source, so no second file needs to be found beside
 * the bundle. A page whose Content Security Policy refuses `blob:` workers gets none, and the
 * images are encoded in the page instead (Chromium still decodes and encodes off the main
 * thread, but the page may stutter on very large ones).
 */
function encodeInWorker(file: Blob, options: ImageOptions & { type: string }): Promise<Encoded> {
  clearTimeout(idleTimer);
  return new Promise<Encoded>((resolve, reject) => {
    if (!worker) {
      const source = `const encodeImage = ${encodeImage.toString()};
onmessage = async ({ data }) => {
  try { postMessage({ ok: await encodeImage(data.file, data.options) }); }
  catch (error) { postMessage({ error: String(error) }); }
};`;
      try {
        worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
      } catch {
        reject(new Error(NO_WORKER));
        return;
      }
    }
    const current = worker;
    current.onmessage = ({ data }: MessageEvent<{ ok?: Encoded; error?: string }>) => {
      idleTimer = setTimeout(() => {
        current.terminate();
        if (worker === current) worker = null;
      }, WORKER_IDLE_MS);
      if (data.ok) resolve(data.ok);
      else reject(new Error(data.error));
    };
    current.onerror = (event) => {
      // The worker could not start (the page's policy): never ask for one again.
      event.preventDefault();
      current.terminate();
      worker = null;
      reject(new Error(NO_WORKER));
    };
    current.postMessage({ file, options });
  });
}

async function encode(file: Blob, options: ImageOptions & { type: string }): Promise<Encoded> {
  if (workersAllowed) {
    try {
      return await encodeInWorker(file, options);
    } catch (error) {
      if ((error as Error).message !== NO_WORKER) throw error;
      workersAllowed = false;
    }
  }
  return encodeImage(file, options);
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
};

/** One image made smaller, or the file as it was (not an image we can write, or no gain). */
export async function shrinkImage(file: File, options: ImageOptions): Promise<File> {
  if (!SHRINKABLE.test(file.type)) return file;
  const type = options.type ?? (file.type === 'image/bmp' ? 'image/jpeg' : file.type);
  const turn = line.then(() => encode(file, { ...options, type }));
  line = turn.catch(() => undefined);
  let encoded: Encoded;
  try {
    encoded = await turn;
  } catch {
    // Not decodable after all (a damaged or mislabelled file): the service gets it as it is.
    return file;
  }
  const { blob, scaled } = encoded;
  if (!scaled && blob.size >= file.size) return file;
  // A type the canvas cannot write (AVIF, say) comes back as PNG: named for what it is.
  const name =
    blob.type === file.type
      ? file.name
      : file.name.replace(/(\.[^.]*)?$/, EXTENSIONS[blob.type] ?? '');
  return new File([blob], name, { type: blob.type, lastModified: file.lastModified });
}

/** The preview of an image for its row in the uploader's list (40 px, at this screen's density). */
export function rowPreview(file: Blob): Promise<string | null> {
  return previewImage(file, Math.ceil(40 * devicePixelRatio));
}

/**
 * An object URL of a small preview of an image (its longest side `side` pixels at most),
 * made like a shrunk image: in the worker, one image at a time, upright. A 24-megapixel
 * photo shown 40 px wide would otherwise be decoded whole in the page for each row. Null
 * when this browser cannot decode it (HEIC, a damaged file): the row shows an icon.
 */
export async function previewImage(file: Blob, side: number): Promise<string | null> {
  const turn = line.then(() =>
    encode(file, { maxWidth: side, maxHeight: side, quality: 0.8, type: 'image/webp' }),
  );
  line = turn.catch(() => undefined);
  try {
    return URL.createObjectURL((await turn).blob);
  } catch {
    return null;
  }
}

/**
 * Shrinks the images among `files` one after another, handing each file (shrunk or not)
 * to `ready` as soon as it is: the first can upload while the next is encoded.
 */
export async function shrinkEach(
  files: File[],
  options: ImageOptions,
  ready: (index: number, file: File) => void,
): Promise<void> {
  for (const [index, file] of files.entries()) ready(index, await shrinkImage(file, options));
}
