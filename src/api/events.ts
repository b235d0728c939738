import type { DeliveryRecord } from './wire.generated.js';

/** What a webhook can be told (decisions.md, "Events (webhooks)"); the schema `EventType`. */
export const EVENT_TYPES = [
  'file.ready',
  'file.deleted',
  'upload.expired',
  'file.infected',
  // An import from a URL failed: its record (status `failed`, `importError`) and `reason`.
  'file.import_failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Endpoints one project may register. */
export const MAX_WEBHOOKS = 10;

/**
 * The webhook and event shapes on the wire, declared once as route schemas
 * (src/server/contract/components.ts) and generated into wire.generated.ts by
 * `npm run openapi`.
 */
export type {
  CreatedWebhook,
  DeletedFileRecord,
  DeliveryRecord,
  EventData,
  EventListResponse,
  EventRecord,
  ImportFailedRecord,
  InfectedFileRecord,
  WebhookListResponse,
  WebhookPayload,
  WebhookRecord,
  WebhookRequest,
} from './wire.generated.js';

/** One endpoint's delivery of an event: where it stands. */
export type DeliveryStatus = DeliveryRecord['status'];
