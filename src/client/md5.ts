import { createMD5 } from 'hash-wasm';

/**
 * MD5 for browsers, which WebCrypto does not offer and S3 checks (`Content-MD5`): hash-wasm's
 * WebAssembly MD5, in a chunk of its own that a page fetches only when an upload asks for
 * it. A Blob is read and hashed in a worker, both, so a 256 MiB upload leaves the page's
 * thread free (reading it cost 0.24-0.42 s here, hashing it about as much again; on the
 * page's thread that was 0.8-0.9 s of its tasks, test/bench/README.md); on the page's thread
 * where no worker can start (a Content Security Policy that refuses `blob:` workers, a
 * runtime without `Worker`, a bundler that gives this module no URL of its own).
 */
export async function md5Base64(bytes: Blob | ReadableStream<Uint8Array>): Promise<string> {
  // A page's thread has a document; a worker (this one's own included) and Node have none.
  if (workersAllowed && bytes instanceof Blob && typeof document !== 'undefined') {
    try {
      return await md5InWorker(bytes);
    } catch (error) {
      if (error !== NO_WORKER) throw error;
      workersAllowed = false;
    }
  }
  // Hashed as the bytes are read (about 1 ms per 700 KiB chunk Chromium hands over), never
  // held whole.
  const hash = await createMD5();
  const reader = (bytes instanceof Blob ? bytes.stream() : bytes).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return btoa(String.fromCharCode(...hash.digest('binary')));
    hash.update(value);
  }
}

/** Thrown (as itself) when no worker can start or load this module. */
const NO_WORKER = new Error('no worker');
/** An idle worker is let go after this long; the next part starts another. */
const WORKER_IDLE_MS = 10_000;

/**
 * Whether this module is a file of its own, which a worker can import: the script-tag build
 * defines it (false in the one-file `filehost.bundle.js`); elsewhere (a bundler's build of
 * the npm package) it is undefined, and a worker that cannot load this module falls back.
 */
declare const __FILEHOST_CHUNKS__: boolean | undefined;
/** False once a worker was refused: the page hashes from then on, asking no more. */
let workersAllowed = typeof __FILEHOST_CHUNKS__ === 'undefined' || __FILEHOST_CHUNKS__;
let worker: Worker | null = null;
let idleTimer: ReturnType<typeof setTimeout> | undefined;
let nextId = 0;
/** Each part under way in the worker, by the number its answer names it by. */
const waiting = new Map<
  number,
  [resolve: (digest: string) => void, reject: (error: unknown) => void]
>();

/**
 * The worker is a module made from a `blob:` URL (a worker's script must be of the page's
 * origin, and this chunk is served from a CDN) that imports this very module by its own
 * URL, so hash-wasm's one copy serves both threads and no file beside the bundle is looked
 * for. It answers `[id, digest]`, or `[id, , name, message]` for a read that failed (the
 * file changed on the disk), thrown here as the page's own read would throw it. Its source
 * is written small: the bundler does not minify a string.
 */
function md5InWorker(blob: Blob): Promise<string> {
  clearTimeout(idleTimer);
  return new Promise((resolve, reject) => {
    if (!worker) {
      const source = `import{md5Base64 as h}from${JSON.stringify(import.meta.url)};onmessage=async({data:[i,b]})=>{try{postMessage([i,await h(b)])}catch(e){postMessage([i,,e.name,e.message])}}`;
      try {
        worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })), {
          type: 'module',
          name: 'filehost-md5',
        });
      } catch {
        reject(NO_WORKER);
        return;
      }
      const started = worker;
      // It could not start (the page's policy) or load this module (no URL of its own):
      // those waiting, and every part after them, are hashed on the page's thread.
      started.onerror = (event) => {
        event.preventDefault();
        started.terminate();
        worker = null;
        for (const [, refuse] of waiting.values()) refuse(NO_WORKER);
        waiting.clear();
      };
      started.onmessage = ({ data: [id, digest, name, message] }: MessageEvent<Answer>) => {
        const [done, failed] = waiting.get(id) ?? [];
        waiting.delete(id);
        if (name) failed?.(new DOMException(message, name));
        else done?.(digest as string);
        if (waiting.size === 0) {
          // Any part asked for meanwhile clears this timer first: the worker is still this one.
          idleTimer = setTimeout(() => {
            started.terminate();
            worker = null;
          }, WORKER_IDLE_MS);
        }
      };
    }
    waiting.set(nextId, [resolve, reject]);
    worker.postMessage([nextId++, blob]);
  });
}

type Answer = [id: number, digest?: string, name?: string, message?: string];
