import { createRequire } from 'node:module';
import type { WebhookPayload } from '../api/events.js';

/**
 * `verifyWebhook`, with the Standard Webhooks reference library (`standardwebhooks`) as an
 * optional peer: loaded on the first verification, not when `filehost/client/node` is
 * imported, so uploads from Node (`fileSource`, `uploadPath`) need nothing but this package,
 * and neither do its types. Without the library, verifying throws an error that says how
 * to install it.
 */

/** Thrown for a webhook that is forged, altered, replayed late or not one of ours. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/** What this module uses of `standardwebhooks` (its `Webhook` class), typed here. */
interface StandardWebhooks {
  Webhook: new (
    secret: string,
  ) => {
    verify(payload: string, headers: Record<string, string>): unknown;
  };
  WebhookVerificationError: new (...args: never[]) => Error;
}

const PEER = 'standardwebhooks';
let library: StandardWebhooks | undefined;

/**
 * The library, required synchronously (it is CommonJS) so that `verifyWebhook` stays a
 * plain function a request handler calls.
 */
function standardWebhooks(): StandardWebhooks {
  if (library) return library;
  try {
    library = createRequire(import.meta.url)(PEER) as StandardWebhooks;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(
      `verifyWebhook needs the Standard Webhooks library, an optional peer of filehost: run \`npm install ${PEER}\` in your project.`,
      { cause: error },
    );
  }
  return library;
}

/**
 * Checks a webhook from filehost as a backend receives it, with the Standard Webhooks
 * reference library: the signature over the id, timestamp and body (with any of the
 * endpoint's secrets), and a timestamp within five minutes of now. Answers the payload;
 * throws `WebhookVerificationError` for anything forged, altered or replayed late.
 * `body` is the raw body exactly as it arrived (bytes or text), never JSON parsed and
 * serialised again, which would change the bytes that were signed.
 */
export function verifyWebhook(
  secret: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string | Uint8Array,
): WebhookPayload {
  const { Webhook, WebhookVerificationError: LibraryError } = standardWebhooks();
  const header = (name: string): string => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    if (typeof value === 'string') return value;
    // Sent twice: not a delivery of ours.
    throw new WebhookVerificationError(`Missing or repeated ${name} header`);
  };
  const signed = {
    'webhook-id': header('webhook-id'),
    'webhook-timestamp': header('webhook-timestamp'),
    'webhook-signature': header('webhook-signature'),
  };
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  try {
    return new Webhook(secret).verify(text, signed) as WebhookPayload;
  } catch (error) {
    // The library's own class, as this package's: one class to catch, typed without it.
    if (error instanceof LibraryError)
      throw new WebhookVerificationError(error.message, { cause: error });
    throw error;
  }
}
