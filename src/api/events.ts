import type { FileRecord } from './types.js';

/** What a webhook can be told (decisions.md, "Events (webhooks)"). */
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

/** `POST /v1/webhooks`: where to send, and which events (all when absent). */
export interface WebhookRequest {
  url: string;
  events?: EventType[];
}

/** A registered endpoint, as `GET /v1/webhooks` lists it. */
export interface WebhookRecord {
  id: string;
  url: string;
  events: EventType[];
  createdAt: number;
}

/**
 * The `201` answer of `POST /v1/webhooks`: the only time the signing secret is shown
 * (`whsec_` and the base64 of 32 random bytes, as Standard Webhooks libraries take it).
 */
export interface CreatedWebhook extends WebhookRecord {
  secret: string;
}

export interface WebhookListResponse {
  webhooks: WebhookRecord[];
}

/**
 * The data of a `file.infected` event: the file as it was refused (never ready; nothing of
 * it was kept), and what the malware scanner found, as ClamAV names it.
 */
export interface InfectedFileRecord extends FileRecord {
  signature: string;
}

/** What a webhook's POST carries: the file record as `GET /v1/files/:id` answers it. */
export interface WebhookPayload {
  type: EventType;
  /** ISO 8601: when the change happened (the same on every retry). */
  timestamp: string;
  /** For `file.infected`, with the `signature` found. */
  data: FileRecord | InfectedFileRecord;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One endpoint's delivery of an event. */
export interface DeliveryRecord {
  webhookId: string;
  status: DeliveryStatus;
  attempts: number;
  /** The HTTP status of the last attempt; null before one, or when no answer came. */
  lastStatus: number | null;
}

/** An event of `GET /v1/events`. */
export interface EventRecord extends WebhookPayload {
  id: string;
  deliveries: DeliveryRecord[];
}

export interface EventListResponse {
  events: EventRecord[];
  nextCursor: string | null;
}
