/**
 * Allowed origins of a project: exact origins (`https://app.example`, compared as browsers
 * send them: scheme, host, port), or an origin with any port (`http://localhost:*`), which
 * the embedded deployment's default project uses so that a new app's dev server works on
 * whatever port it picked (decisions.md, "Development defaults").
 */

/** The embedded default project's origins when `FILEHOST_ALLOWED_ORIGINS` is not set. */
export const LOOPBACK_ORIGINS: readonly string[] = [
  'http://localhost:*',
  'http://127.0.0.1:*',
  'http://[::1]:*',
];

const ANY_PORT = ':*';

/**
 * An allowed-origin entry as browsers would send it, or a `TypeError` saying what it should
 * look like. `scheme://host:*` allows every port of that scheme and host.
 */
export function normalizeOrigin(item: string): string {
  const anyPort = item.endsWith(ANY_PORT);
  let url: URL;
  try {
    url = new URL(anyPort ? item.slice(0, -ANY_PORT.length) : item);
  } catch {
    throw new TypeError(`"${item}" is not an origin like https://example.com`);
  }
  if (
    url.origin === 'null' ||
    url.pathname.length > 1 ||
    url.search ||
    url.hash ||
    (anyPort && url.port)
  ) {
    throw new TypeError(
      `"${item}" must be a bare origin like https://example.com (or http://localhost:* for any port)`,
    );
  }
  return anyPort ? `${url.protocol}//${url.hostname}${ANY_PORT}` : url.origin;
}

/** Whether an `Origin` header's value is allowed by a project's list. */
export function originAllowed(allowed: readonly string[], origin: string): boolean {
  if (allowed.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // `new URL` drops a default port, so `http://localhost` (port 80) matches `http://localhost:*`.
  return url.origin === origin && allowed.includes(`${url.protocol}//${url.hostname}${ANY_PORT}`);
}
