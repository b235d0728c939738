import { executeServerCommand } from '@web/test-runner-commands';
import type { UploadTokenRequest, UploadTokenResponse, Usage } from '../../src/api/types.js';
import { patternBytes } from '../helpers/bytes.js';
import type { ProjectForTest } from '../helpers/wtr-plugins.js';

/** A fresh project on the real service (see `filehostService` in test/helpers/wtr-plugins.ts). */
export function project(
  options: {
    allowTestOrigin?: boolean;
    plan?: 'free' | 'paid';
    rateLimited?: boolean;
    shortLivedUrls?: boolean;
    requireUploadToken?: boolean;
  } = {},
): Promise<ProjectForTest> {
  return executeServerCommand('filehost-project', options) as Promise<ProjectForTest>;
}

/**
 * An upload token of the project of `publishableKey`, minted by its backend (the secret key
 * stays with the test runner); `expired`: one already past its expiry.
 */
export function uploadToken(
  publishableKey: string,
  options: { policy?: UploadTokenRequest; expired?: boolean } = {},
): Promise<UploadTokenResponse> {
  return executeServerCommand('filehost-token', {
    publishableKey,
    ...options,
  }) as Promise<UploadTokenResponse>;
}

/** `GET /v1/usage` of the project of `publishableKey` (asked with its secret key). */
export function usage(publishableKey: string): Promise<Usage> {
  return executeServerCommand('filehost-usage', { publishableKey }) as Promise<Usage>;
}

/**
 * The ceiling of a `waitUntil` (its own default is 1 s): room for a machine loaded as CI's is,
 * several browsers and the Node suites side by side on two cores.
 */
export const LOADED = { timeout: 30_000 };

/**
 * The `ms` of a hold a test ends itself with `network('release')`: only a ceiling, far past
 * anything a loaded machine takes to get where the test looks at the held request.
 */
export const HELD = 60_000;

/** Real network conditions in this browser, set from the test runner (Playwright). */
/** `pattern` is a regular expression over request URLs. */
export function network(
  action:
    | 'drop'
    | 'restore'
    | 'offline-for'
    | 'log'
    | 'answered'
    | 'ended'
    | 'hold'
    | 'held'
    | 'release'
    | 'refuse'
    | 'flip'
    | 'grant-clipboard',
  pattern?: string,
  ms?: number,
  once = false,
  /** The first `skip` requests the pattern matches go on untouched. */
  skip = 0,
): Promise<unknown> {
  return executeServerCommand('filehost-network', { action, pattern, ms, once, skip });
}

/**
 * The answers of the next `count` requests `pattern` matches reach the page at once, whatever
 * the machine's load (each sent on, its answer held until all are in); `network('restore')`
 * lifts it.
 */
export function landTogether(pattern: string, count: number): Promise<unknown> {
  return executeServerCommand('filehost-network', { action: 'together', pattern, count });
}

/** The page's uplink at `bytesPerSecond`, as a user's link would be (`network('restore')` lifts it). */
export function throttleUploads(bytesPerSecond: number): Promise<unknown> {
  return executeServerCommand('filehost-network', { action: 'throttle', bytesPerSecond });
}

/** One moment of a touch gesture: its kind and where each finger is (viewport pixels). */
export interface TouchStep {
  type: 'touchStart' | 'touchMove' | 'touchEnd';
  points: { x: number; y: number }[];
}

/**
 * A touch screen, real touches (Chromium's touch input, as a finger would give), or real
 * files set on a file input of the page (see wtr-plugins.ts).
 */
export function device(
  options:
    | { action: 'touch'; enabled: boolean }
    | { action: 'touches'; steps: TouchStep[] }
    | { action: 'pick'; selector: string; files: Record<string, string>; folder?: string },
): Promise<unknown> {
  return executeServerCommand('filehost-device', options);
}

export { patternBytes as bytes } from '../helpers/bytes.js';

export function file(
  name: string,
  size: number,
  type = 'application/octet-stream',
  seed = 1,
): File {
  return new File([patternBytes(size, seed)], name, { type });
}

/** A real PNG drawn on a canvas (for thumbnails). */
export async function png(name = 'dot.png'): Promise<File> {
  const canvas = document.createElement('canvas');
  canvas.width = 32;
  canvas.height = 32;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d context');
  context.fillStyle = '#e11d48';
  context.fillRect(0, 0, 32, 32);
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
  if (!blob) throw new Error('canvas gave no PNG');
  return new File([blob], name, { type: 'image/png' });
}

/** Chooses files through the element's real file input, as the picker would. */
export function pick(element: HTMLElement, files: File[]): void {
  const input = element.shadowRoot?.querySelector<HTMLInputElement>('input[type=file]');
  if (!input) throw new Error('no file input');
  const transfer = new DataTransfer();
  for (const item of files) transfer.items.add(item);
  input.files = transfer.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
}

export function transferOf(files: File[]): DataTransfer {
  const transfer = new DataTransfer();
  for (const item of files) transfer.items.add(item);
  return transfer;
}

export async function sameBytes(url: string, expected: Uint8Array): Promise<boolean> {
  const response = await fetch(url);
  if (!response.ok) return false;
  const actual = new Uint8Array(await response.arrayBuffer());
  if (actual.length !== expected.length) return false;
  return actual.every((value, index) => value === expected[index]);
}

/** Resolves with the detail of the next event of that type on the element. */
export function next<K extends keyof HTMLElementEventMap>(
  element: HTMLElement,
  type: K,
  timeoutMs = 20_000,
): Promise<HTMLElementEventMap[K] extends CustomEvent<infer D> ? D : never> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${type} event within ${timeoutMs} ms`)),
      timeoutMs,
    );
    element.addEventListener(
      type,
      (event) => {
        clearTimeout(timer);
        resolve((event as CustomEvent).detail);
      },
      { once: true },
    );
  });
}

export function text(element: HTMLElement): string {
  return (element.shadowRoot?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * Resolves once requests to `url` really fail in this page (a route set from the test
 * runner can take effect a moment after the command returns).
 */
export async function untilUnreachable(url: string, timeoutMs = LOADED.timeout): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      await fetch(url, { cache: 'no-store' });
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} is still reachable`);
}

/**
 * Resolves once `condition` holds: files picked before the upload engine is loaded are
 * checked (and refused) once it is, a moment later.
 */
export async function until(condition: () => boolean, timeoutMs = LOADED.timeout): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
