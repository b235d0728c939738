import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { WebhookPayload } from '../../api/events.js';
import type { FileRecord } from '../../api/types.js';
import type { ClaimedDelivery } from '../db/metadata-store.js';
import {
  type CheckedAddress,
  parseTargetUrl,
  pinnedLookup,
  resolveTarget,
  TargetRefusedError,
} from '../ground/targets.js';

/** How much of a receiver's answer is read (and then ignored): enough to end it cleanly. */
const ANSWER_READ_LIMIT = 64 * 1024;

export interface AttemptResult {
  delivered: boolean;
  /** The status the receiver answered; null when none came. */
  httpStatus: number | null;
  error: string | null;
}

export interface SendOptions {
  allowPrivate: boolean;
  /** The whole attempt, connection to answer: decisions.md's 15 s. */
  timeoutMs: number;
  /** This attempt's time: its `webhook-timestamp` and signature. */
  now: number;
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    // A name that does not resolve in time is one that does not resolve.
    timer = setTimeout(() => reject(new TargetRefusedError()), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The body every attempt of an event sends, byte for byte. */
export function webhookBody(
  delivery: Pick<ClaimedDelivery, 'type' | 'createdAt' | 'data'>,
): string {
  const payload: WebhookPayload = {
    type: delivery.type,
    timestamp: new Date(delivery.createdAt).toISOString(),
    data: delivery.data as FileRecord,
  };
  return JSON.stringify(payload);
}

/**
 * The Standard Webhooks headers of an attempt: the event's id (the same on every retry),
 * this attempt's time, and the signature the reference library makes over both and the body.
 */
export function webhookHeaders(
  delivery: Pick<ClaimedDelivery, 'eventId' | 'secret'>,
  body: string,
  now: number,
): Record<string, string> {
  const at = new Date(now);
  return {
    'content-type': 'application/json',
    'user-agent': 'filehost-webhooks',
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(Math.floor(now / 1000)),
    'webhook-signature': new Webhook(delivery.secret).sign(delivery.eventId, at, body),
  };
}

/**
 * One attempt: POST to the endpoint at the address its name resolved to, once that address
 * was checked; a redirect is not followed (it counts as a failed attempt); the answer's body
 * is read up to a small limit and otherwise ignored. Never throws: every way an attempt can
 * end is a result.
 */
export async function sendWebhook(
  delivery: ClaimedDelivery,
  options: SendOptions,
): Promise<AttemptResult> {
  const url = parseTargetUrl(delivery.url);
  if (typeof url === 'string') return { delivered: false, httpStatus: null, error: url };
  const deadline = Date.now() + options.timeoutMs;
  let target: CheckedAddress;
  try {
    // Resolving the name is part of the attempt, and of its time limit.
    target = await withDeadline(resolveTarget(url, options.allowPrivate), options.timeoutMs);
  } catch (error) {
    const message = error instanceof TargetRefusedError ? error.message : String(error);
    return { delivered: false, httpStatus: null, error: message };
  }
  const body = webhookBody(delivery);
  // The connection goes to the address that was checked, whatever the resolver says now.
  const pinned = pinnedLookup(target);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    /** The answer's status, once its head arrived: it decides the attempt. */
    let answered: number | null = null;
    const byStatus = (status: number): AttemptResult => {
      const delivered = status >= 200 && status < 300;
      return { delivered, httpStatus: status, error: delivered ? null : `answered ${status}` };
    };
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      resolve(result);
    };
    const outgoing = request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        headers: {
          ...webhookHeaders(delivery, body, options.now),
          'content-length': String(Buffer.byteLength(body)),
        },
        agent: false,
      },
      (answer: IncomingMessage) => {
        const status = answer.statusCode ?? 0;
        answered = status;
        let read = 0;
        const done = () => finish(byStatus(status));
        answer.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > ANSWER_READ_LIMIT) done();
        });
        answer.on('end', done);
        answer.on('error', done);
      },
    );
    const timer = setTimeout(
      () =>
        finish(
          answered !== null
            ? byStatus(answered)
            : {
                delivered: false,
                httpStatus: null,
                error: `no answer within ${options.timeoutMs / 1000} s`,
              },
        ),
      Math.max(0, deadline - Date.now()),
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      finish(
        answered !== null
          ? byStatus(answered)
          : { delivered: false, httpStatus: null, error: error.code ?? error.message },
      ),
    );
    outgoing.end(body);
  });
}
