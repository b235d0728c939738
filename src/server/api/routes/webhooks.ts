import {
  type CreatedWebhook,
  EVENT_TYPES,
  MAX_WEBHOOKS,
  type WebhookListResponse,
  type WebhookRecord,
} from '../../../api/events.js';
import type { ServiceContext } from '../../context.js';
import type { WebhookRow } from '../../db/metadata-store.js';
import { newWebhookSecret } from '../../events/webhook-secret.js';
import { fail } from '../../ground/errors.js';
import { newId } from '../../ground/secrets.js';
import { parseTargetUrl, resolveTarget, TargetRefusedError } from '../../ground/targets.js';
import type { RouteInput } from '../route-input.js';

/** The most a webhook's JSON body may have (the route table reads it). */
export const WEBHOOK_JSON_LIMIT = 16 * 1024;

/**
 * `POST /v1/webhooks` (secret key): registers an endpoint for some or all events and
 * answers its signing secret, shown only here. A target in a loopback, private or
 * link-local range is refused unless the operator allows them (`FILEHOST_WEBHOOK_ALLOW_PRIVATE`);
 * it is checked again at every delivery, on the address actually connected to.
 */
export async function createWebhookHandler(
  ctx: ServiceContext,
  { reply, caller, body: given }: RouteInput<'createWebhook'>,
): Promise<void> {
  // The form is the declaration's (WebhookRequest); the URL's scheme, credentials and
  // length, and where it leads, are the service's own rules.
  const url = parseTargetUrl(given.url);
  if (typeof url === 'string') fail('invalid_request', url);
  const events = given.events ?? EVENT_TYPES;
  await requireReachable(ctx, url);
  const webhook: WebhookRow = {
    id: newId('wh_'),
    projectId: caller.project.id,
    url: url.href,
    // Each type once, in the order the service lists them.
    events: EVENT_TYPES.filter((type) => events.includes(type)),
    secret: newWebhookSecret(),
    createdAt: ctx.now(),
  };
  if (!(await ctx.db.createWebhook(webhook, MAX_WEBHOOKS))) {
    fail('invalid_request', `A project has at most ${MAX_WEBHOOKS} webhooks; delete one first.`);
  }
  const answer: CreatedWebhook = { ...toWebhookRecord(webhook), secret: webhook.secret };
  reply.code(201).header('Cache-Control', 'no-store').send(answer);
}

/** `GET /v1/webhooks` (secret key): the project's endpoints, without their secrets. */
export async function listWebhooksHandler(
  ctx: ServiceContext,
  { reply, caller }: RouteInput<'listWebhooks'>,
): Promise<void> {
  const answer: WebhookListResponse = {
    webhooks: (await ctx.db.listWebhooks(caller.project.id)).map(toWebhookRecord),
  };
  reply.header('Cache-Control', 'no-store').send(answer);
}

/** `DELETE /v1/webhooks/:id` (secret key): no more deliveries to it, pending ones dropped. */
export async function deleteWebhookHandler(
  ctx: ServiceContext,
  { request, reply, caller }: RouteInput<'deleteWebhook', { id: string }>,
): Promise<void> {
  if (!(await ctx.db.deleteWebhook(caller.project.id, request.params.id))) {
    fail('not_found', 'No webhook with this id.');
  }
  reply.code(204).send();
}

export function toWebhookRecord(row: WebhookRow): WebhookRecord {
  return { id: row.id, url: row.url, events: row.events, createdAt: row.createdAt };
}

async function requireReachable(ctx: ServiceContext, url: URL): Promise<void> {
  try {
    await resolveTarget(url, ctx.config.webhookAllowPrivate);
  } catch (error) {
    if (!(error instanceof TargetRefusedError)) throw error;
    fail('invalid_request', `The webhook URL cannot be used: ${error.message}.`);
  }
}
