import { EVENT_TYPES } from '../../api/events.js';
import type { MetadataStore, Project, WebhookRow } from '../db/metadata-store.js';
import type { ServiceConfig } from '../ground/config.js';
import { newId } from '../ground/secrets.js';
import { newWebhookSecret } from './webhook-secret.js';

/**
 * `FILEHOST_WEBHOOK_URL` (and `FILEHOST_WEBHOOK_SECRET`): the default project's endpoint for
 * every event, made at start unless it is there already with that URL (and that secret,
 * when one is given), so a restart keeps it and its secret. Instances starting together
 * take turns, so they make one endpoint between them.
 */
export async function ensureConfiguredWebhook(
  db: MetadataStore,
  project: Project,
  config: Pick<ServiceConfig, 'webhookUrl' | 'webhookSecret'>,
  now: number,
): Promise<WebhookRow | null> {
  const url = config.webhookUrl;
  if (url === undefined) return null;
  for (let tries = 0; tries < 100; tries++) {
    const outcome = await db.runExclusive('configured-webhook', async () => {
      const existing = (await db.listWebhooks(project.id)).find((hook) => hook.url === url);
      if (existing && (!config.webhookSecret || existing.secret === config.webhookSecret)) {
        return existing;
      }
      // The operator gave another secret: the endpoint is made again with it.
      if (existing) await db.deleteWebhook(project.id, existing.id);
      const webhook: WebhookRow = {
        id: newId('wh_'),
        projectId: project.id,
        url,
        events: [...EVENT_TYPES],
        secret: config.webhookSecret ?? newWebhookSecret(),
        createdAt: now,
      };
      // The operator's own endpoint is not held to the API's limit of endpoints: the bound
      // is the largest an SQL INTEGER holds (PostgreSQL refuses MAX_SAFE_INTEGER there).
      if (!(await db.createWebhook(webhook, 2 ** 31 - 1))) {
        throw new Error('The configured webhook could not be stored');
      }
      return webhook;
    });
    if (outcome.ran) return outcome.value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('Another instance kept the configured webhook busy for 10 s');
}
