import type { PartChecksum } from '../../api/checksum.js';
import type { DeliveryStatus, EventType } from '../../api/events.js';
import type { Plan } from '../../api/limits.js';
import type {
  FileMetadata,
  ImportErrorCode,
  UploadTokenPolicy,
  Visibility,
} from '../../api/types.js';
import type { KeyKind } from '../ground/secrets.js';

export interface Project {
  id: string;
  name: string;
  plan: Plan;
  /** Exact origins (scheme, host, port) from which the publishable key may be used. */
  allowedOrigins: string[];
  /**
   * The media types the project accepts (`image/*`, `application/pdf`), declared at sign and
   * recognised from the bytes at completion; null: every type.
   */
  allowedTypes: string[] | null;
  /** Bytes the project may keep (ready, plus pending uploads' signed sizes); 0: none; null: its plan's. */
  storageQuota: number | null;
  /** Pending uploads at once; 0: no cap; null: its plan's. */
  maxPendingUploads: number | null;
  /** Uploads need an upload token: the publishable key alone may list and get, not upload. */
  requireUploadToken: boolean;
  /**
   * The part of the quota and of the pending cap that anonymous files (publishable key, no
   * token) may hold together, 0 to 1; null: the default, `DEFAULT_ANONYMOUS_SHARE`.
   */
  anonymousShare: number | null;
  createdAt: number;
}

/** The limits a new upload must fit in; null: no limit. */
export interface Quota {
  storageBytes: number | null;
  pendingUploads: number | null;
}

/** What a project holds now (decisions.md, `GET /v1/usage`). */
export interface UsageCounts {
  storedBytes: number;
  files: number;
  /** Signed sizes of pending uploads, and what one-request uploads under way reserved. */
  pendingBytes: number;
  pendingUploads: number;
  /** Of all the above, what anonymous files hold: bytes (pending and ready), pending uploads. */
  anonymousBytes: number;
  anonymousUploads: number;
}

/**
 * Which limit new uploads would pass: the project's own (`storage`, `pending_uploads`), the
 * share all anonymous files may hold together (`anonymous_storage`,
 * `anonymous_pending_uploads`, both `anonymous_share` on the wire), or one client address's
 * (`address_bytes` in its window, `address_uploads` pending at once).
 */
export type QuotaLimit =
  | 'storage'
  | 'pending_uploads'
  | 'anonymous_storage'
  | 'anonymous_pending_uploads'
  | 'address_bytes'
  | 'address_uploads';

/** What `GET /v1/usage` answers besides the limits: the counts, and stored image variants. */
export interface ProjectUsage extends UsageCounts {
  /** Bytes of the image variants stored for ready files (not counted against the quota). */
  variantBytes: number;
}

/** What `recordVariant` did: whether it recorded the variant, and which it forgot for room. */
export interface RecordedVariant {
  recorded: boolean;
  evicted: Array<{ fileId: string; name: string }>;
}

/** An image variant stored beside a ready file (`BlobStore.putDerived`), for its bookkeeping. */
export interface VariantRow {
  fileId: string;
  /** Its derived object's name. */
  name: string;
  size: number;
  /** When it was last served (ms), to the minute or so: the least recently served go first. */
  servedAt: number;
}

/** New uploads that would pass a quota: which limit, and the first of them over it. */
export class QuotaExceededError extends Error {
  constructor(
    readonly limit: QuotaLimit,
    readonly index: number,
    readonly usage: UsageCounts,
    /** The bound that was passed, and what counted against it before these uploads. */
    readonly bound: { max: number; used: number } = { max: 0, used: 0 },
  ) {
    super(`quota exceeded: ${limit}`);
    this.name = 'QuotaExceededError';
  }
}

/** New uploads that would pass an upload token's `maxFiles` or `maxBytes`. */
export class TokenExhaustedError extends Error {
  constructor(
    readonly limit: 'files' | 'bytes',
    readonly index: number,
    readonly max: number,
    readonly used: number,
  ) {
    super(`upload token exhausted: ${limit}`);
    this.name = 'TokenExhaustedError';
  }
}

/**
 * Anonymous uploads (publishable key, no upload token) and what they may hold: per client
 * address group, pending uploads at once and bytes of the uploads it started within a
 * window (pending or ready); all anonymous files together, a share of the project's limits.
 */
export interface AnonymousCaps {
  /** The client's address group (`addressGroup`), as files record it. */
  address: string;
  perAddress: { uploads: number; bytes: number; windowMs: number };
  /** null: no bound (the project has no such limit). */
  share: Quota;
}

/**
 * What one address group's anonymous files hold now: pending uploads, and bytes of those
 * started since the window's start that are pending or ready.
 */
export interface AnonymousUsage {
  addressBytes: number;
  addressUploads: number;
}

/** What a token's uploads hold now: every file it signed that still counts. */
export interface TokenUsage {
  files: number;
  bytes: number;
}

/**
 * What new uploads must fit, checked with their insert as one step. `now`: pending uploads
 * past their expiry hold nothing any more, even before the sweeper removes them.
 */
export interface Reservation {
  quota: Quota;
  now: number;
  anonymous?: AnonymousCaps | null;
  token?: { id: string; maxFiles: number | null; maxBytes: number | null } | null;
}

/** Whether a reservation needs any sum of what is held (else rows are simply inserted). */
export function checksAnything(reservation: Reservation): boolean {
  const { token } = reservation;
  return (
    limits(reservation.quota) ||
    !!reservation.anonymous ||
    (!!token && (token.maxFiles !== null || token.maxBytes !== null))
  );
}

/**
 * Whether `files` fit every bound of `reservation`: null, or the first error. Bounds are
 * checked as the rows are added one by one, so a batch learns the index of its first entry
 * over; one rule for both stores.
 */
export function overReservation(
  reservation: Reservation,
  files: readonly Pick<FileRow, 'size' | 'status'>[],
  usage: UsageCounts,
  anonymous: AnonymousUsage | null,
  token: TokenUsage | null,
): QuotaExceededError | TokenExhaustedError | null {
  const project = overQuota(usage, files, reservation.quota);
  if (project) return project;
  const caps = reservation.anonymous;
  if (caps && anonymous) {
    let bytes = usage.anonymousBytes;
    let uploads = usage.anonymousUploads;
    let addressBytes = anonymous.addressBytes;
    let addressUploads = anonymous.addressUploads;
    for (const [index, file] of files.entries()) {
      const pending = file.status === 'pending' ? 1 : 0;
      bytes += file.size;
      uploads += pending;
      addressBytes += file.size;
      addressUploads += pending;
      const over = (limit: QuotaLimit, max: number | null, now: number, before: number) =>
        max !== null && now > max
          ? new QuotaExceededError(limit, index, usage, { max, used: before })
          : null;
      const error =
        over(
          'address_uploads',
          caps.perAddress.uploads,
          addressUploads,
          anonymous.addressUploads,
        ) ??
        over('address_bytes', caps.perAddress.bytes, addressBytes, anonymous.addressBytes) ??
        over(
          'anonymous_pending_uploads',
          caps.share.pendingUploads,
          uploads,
          usage.anonymousUploads,
        ) ??
        over('anonymous_storage', caps.share.storageBytes, bytes, usage.anonymousBytes);
      if (error) return error;
    }
  }
  const limitsOf = reservation.token;
  if (limitsOf && token) {
    let count = token.files;
    let bytes = token.bytes;
    for (const [index, file] of files.entries()) {
      count++;
      bytes += file.size;
      if (limitsOf.maxFiles !== null && count > limitsOf.maxFiles) {
        return new TokenExhaustedError('files', index, limitsOf.maxFiles, token.files);
      }
      if (limitsOf.maxBytes !== null && bytes > limitsOf.maxBytes) {
        return new TokenExhaustedError('bytes', index, limitsOf.maxBytes, token.bytes);
      }
    }
  }
  return null;
}

/** Whether a quota limits anything: a project without limits needs no sum of its usage. */
export function limits(quota: Quota): boolean {
  return quota.storageBytes !== null || quota.pendingUploads !== null;
}

/**
 * Whether `files` fit `quota` on top of `usage`: null, or the limit passed and the first
 * file over it. One rule for both stores: receiving rows count their reserved bytes, pending
 * rows their signed size and one pending upload each.
 */
export function overQuota(
  usage: UsageCounts,
  files: readonly Pick<FileRow, 'size' | 'status'>[],
  quota: Quota,
): QuotaExceededError | null {
  let bytes = usage.storedBytes + usage.pendingBytes;
  let pending = usage.pendingUploads;
  for (const [index, file] of files.entries()) {
    bytes += file.size;
    if (file.status === 'pending') pending++;
    if (quota.storageBytes !== null && bytes > quota.storageBytes) {
      return new QuotaExceededError('storage', index, usage);
    }
    if (quota.pendingUploads !== null && pending > quota.pendingUploads) {
      return new QuotaExceededError('pending_uploads', index, usage);
    }
  }
  return null;
}

/** What `updateProject` changes: the fields given (`allowedTypes: null` removes the list). */
export type ProjectPatch = Partial<
  Pick<
    Project,
    | 'name'
    | 'plan'
    | 'allowedOrigins'
    | 'allowedTypes'
    | 'storageQuota'
    | 'maxPendingUploads'
    | 'requireUploadToken'
    | 'anonymousShare'
  >
>;

export interface ApiKeyRow {
  id: string;
  projectId: string;
  kind: KeyKind;
  /** SHA-256 of the key; the key itself is never stored. */
  hash: string;
  hint: string;
  createdAt: number;
  revokedAt: number | null;
}

/**
 * `receiving`: a one-request upload whose bytes are still arriving; invisible everywhere
 * and removed with its bytes if the process dies. `deleted`: gone for clients; `purged`
 * says whether its bytes have been removed too.
 */
export type FileRowStatus = 'receiving' | 'pending' | 'ready' | 'deleted';

export interface FileRow {
  id: string;
  projectId: string;
  name: string;
  mime: string;
  size: number;
  createdAt: number;
  status: FileRowStatus;
  metadata: FileMetadata;
  /** Multi-step uploads only: the part size they were signed with. */
  partSize: number | null;
  /** Multi-step uploads only: the blob store's handle for the multipart upload. */
  storageUploadId: string | null;
  /**
   * Pending uploads: when their signed URLs stop working. Receiving rows: when the lease of
   * the instance receiving the bytes runs out (it renews the lease while bytes arrive).
   */
  expiresAt: number | null;
  deletedAt: number | null;
  /** Multi-step uploads signed with `checksum: true`: the digest every part PUT must carry. */
  checksum: PartChecksum | null;
  /**
   * Multi-step uploads: SHA-256 of the upload token their sign answered; with a
   * publishable key, only a caller showing that token may see, continue or finish them.
   */
  uploadTokenHash: string | null;
  /** Ready multi-step uploads: the parts, with their ETags, they were completed with. */
  completedParts: CompletedPart[] | null;
  /** `private`: served by the CDN only through a signed link; `public` (the default) to anyone. */
  visibility: Visibility;
  /** When the file is deleted by itself (ms); null: kept until deleted. */
  deleteAt: number | null;
  /**
   * The upload token (`upt_…`, its id) that signed it, while the upload counts against the
   * token's limits: cleared when the room comes back (aborted, refused, expired).
   */
  tokenId: string | null;
  /**
   * Anonymous files (publishable key, no token): the client's address group
   * (`addressGroup`) that uploaded it, kept for the file's life: it is what makes the file
   * count in the anonymous share, and in its address's allowance. Null: uploaded with the
   * secret key or a token (or made ready before anonymous files were told apart).
   */
  anonymousAddress: string | null;
  /**
   * When clamd found the file clean (ms); null (or absent, on rows made before scanning)
   * when no scanner was configured as it became ready.
   */
  scannedAt?: number | null;
  /** Files imported from a URL (`POST /v1/uploads/import`): how far, or why it failed; else null. */
  importState: ImportState | null;
  /**
   * A ready image's ThumbHash (base64, decisions.md "Placeholders"); null (or absent, on
   * rows made before placeholders) for other files and images that do not decode.
   */
  placeholder?: string | null;
}

/** Why an import failed, as `importError` says it (decisions.md, "Importing from a URL"). */
export interface ImportErrorState {
  code: ImportErrorCode;
  message: string;
  /** The remote server's status, for `import_http_error`. */
  status?: number;
  /** The most bytes the file could have had, for `too_large`. */
  limit?: number;
}

/**
 * An import's state as the instance fetching it records it: bytes received so far, the
 * expected total when the remote server declared one, and once it failed, why. The source
 * URL is not kept: it may carry credentials of its own (a presigned link), and nothing
 * fetches it again (an interrupted import fails; see `imports/importer.ts`).
 */
export interface ImportState {
  receivedBytes: number;
  totalBytes: number | null;
  error: ImportErrorState | null;
}

/** What `markReady` may set as a row becomes ready (each absent one is kept). */
export type ReadyFields = Partial<
  Pick<
    FileRow,
    | 'name'
    | 'mime'
    | 'size'
    | 'metadata'
    | 'createdAt'
    | 'completedParts'
    | 'visibility'
    | 'scannedAt'
    | 'placeholder'
  >
>;

/** An upload token a project's backend minted; the token itself is never stored. */
export interface UploadTokenRow {
  id: string;
  projectId: string;
  /** SHA-256 of the token. */
  hash: string;
  policy: UploadTokenPolicy;
  expiresAt: number;
  createdAt: number;
}

export interface CompletedPart {
  partNumber: number;
  etag: string;
}

export interface ListPosition {
  createdAt: number;
  id: string;
}

/** A registered webhook endpoint, with the secret its deliveries are signed with. */
export interface WebhookRow {
  id: string;
  projectId: string;
  url: string;
  events: EventType[];
  /** `whsec_…`, as Standard Webhooks libraries take it. */
  secret: string;
  createdAt: number;
}

/**
 * An event to record with a change of a file, in the change's own transaction: recorded
 * only if the change happened, with `data` made from the row the change touched (the new
 * row of `markReady` and `expirePending`, the row as it was of `markDeleted`).
 */
export interface EventDraft {
  id: string;
  type: EventType;
  at: number;
  data: (row: FileRow) => unknown;
}

export interface DeliveryRow {
  webhookId: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
}

export interface EventRow {
  id: string;
  projectId: string;
  type: EventType;
  createdAt: number;
  data: unknown;
  deliveries: DeliveryRow[];
}

/** A delivery an instance has claimed: what it needs to make the attempt. */
export interface ClaimedDelivery {
  eventId: string;
  webhookId: string;
  /** Attempts made before this one. */
  attempts: number;
  type: EventType;
  createdAt: number;
  data: unknown;
  url: string;
  secret: string;
  /** The claim that holds its lease: only it may record the attempt's outcome. */
  claim: string;
}

/** What an attempt came to: `pending` with the next attempt's time, or an end. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  /** The HTTP status answered, null when none came (refused, timed out, not allowed). */
  httpStatus: number | null;
  error: string | null;
}

/**
 * Everything the service remembers apart from file bytes. Async so that a networked
 * database (PostgreSQL) can implement it; every implementation passes
 * `test/server/db/metadata-store.conformance.ts`.
 */
export interface MetadataStore {
  close(): Promise<void>;
  /**
   * Proves the database takes writes now (`GET /readyz`): resolves when it does, rejects
   * when it cannot (away, locked by another process, read-only). Writes nothing.
   */
  probe(): Promise<void>;

  createProject(project: Project): Promise<void>;
  updateProject(id: string, patch: ProjectPatch): Promise<Project | null>;
  getProject(id: string): Promise<Project | null>;
  listProjects(): Promise<Project[]>;

  addKey(key: ApiKeyRow): Promise<void>;
  /** Finds a live (not revoked) key by the hash of its value, with its project. */
  findKeyByHash(hash: string): Promise<{ key: ApiKeyRow; project: Project } | null>;
  listKeys(projectId: string): Promise<ApiKeyRow[]>;
  revokeKey(id: string, at: number): Promise<boolean>;

  /** Stores a new upload token (its hash and policy). */
  createUploadToken(token: UploadTokenRow): Promise<void>;
  /** An upload token by the hash of its value, with its project (expired ones too). */
  findUploadTokenByHash(hash: string): Promise<{ token: UploadTokenRow; project: Project } | null>;
  getUploadToken(id: string): Promise<UploadTokenRow | null>;
  /** What a token's uploads hold now (pending ones past their expiry hold nothing). */
  tokenUsage(tokenId: string, now: number): Promise<TokenUsage>;

  insertFile(file: FileRow): Promise<void>;
  /**
   * Inserts new uploads (pending or receiving rows) of one project all together, only if
   * they fit every bound of `reservation` (the project's quota, the anonymous caps, the
   * token's limits) on top of what is held, checked and inserted as one step, exact however
   * many instances insert at once; else none, and `QuotaExceededError` or
   * `TokenExhaustedError`.
   */
  insertFiles(projectId: string, files: FileRow[], reservation: Reservation): Promise<void>;
  /**
   * What the project holds now, its stored image variants included; pending uploads past
   * their expiry at `now` hold nothing.
   */
  usage(projectId: string, now: number): Promise<ProjectUsage>;
  /**
   * What one client address group's anonymous files of the project hold at `now`: pending
   * uploads, and bytes of those started within `windowMs` before it (as `insertFiles`
   * counts them against `AnonymousCaps.perAddress`).
   */
  addressUsage(
    projectId: string,
    address: string,
    now: number,
    windowMs: number,
  ): Promise<AnonymousUsage>;
  /** A file a client can see (pending or ready) in the given project. */
  getVisibleFile(projectId: string, id: string): Promise<FileRow | null>;
  /** Any non-deleted row by id alone: the CDN and signed part URLs carry no project. */
  getLiveFile(id: string): Promise<FileRow | null>;
  /** Visible files, newest first, strictly after `after` in (createdAt desc, id desc). */
  listFiles(projectId: string, after: ListPosition | null, limit: number): Promise<FileRow[]>;
  /**
   * Moves a row from `from` to `ready`, setting the given fields; false if it was not in
   * `from`. `event`: recorded in the same transaction, only if the row moved.
   */
  markReady(
    id: string,
    from: 'receiving' | 'pending',
    fields: ReadyFields,
    event?: EventDraft,
  ): Promise<boolean>;
  /**
   * Takes a file the scanner found infected out of `from` (a pending upload, or a
   * receiving one-request upload) and marks it deleted, so its bytes are purged and it is
   * never served; false if it was not in `from`. `event` (`file.infected`): recorded in the
   * same transaction, with the row as it is after.
   */
  markInfected(
    id: string,
    from: 'receiving' | 'pending',
    at: number,
    event?: EventDraft,
  ): Promise<boolean>;
  /**
   * Marks a visible file deleted (it stops being listed and served at once); answers the
   * row as it was. `event`: recorded in the same transaction, only if it was deleted.
   */
  markDeleted(
    projectId: string,
    id: string,
    at: number,
    event?: EventDraft,
  ): Promise<FileRow | null>;
  /** Removes a row that never became visible (a failed one-request upload). */
  discardReceiving(id: string): Promise<void>;
  /** Moves a pending upload's URL expiry, or a receiving row's lease, to `expiresAt`. */
  extendExpiry(id: string, expiresAt: number): Promise<void>;
  setStorageUploadId(id: string, storageUploadId: string): Promise<void>;

  /**
   * tus (`uploads/tus-*.ts`): the state of a pending upload that arrives through `/v1/tus`,
   * kept beside its file row. `createTusUpload` starts it at offset 0, unleased. It goes
   * with its pending upload, in the same transaction (a trigger of both databases), as the
   * row stops being pending by any call (ready, infected, deleted, expired) or is removed.
   */
  createTusUpload(id: string): Promise<void>;
  /** The tus state of `id`, or null when it has none (not a tus upload, or finished). */
  getTusUpload(id: string): Promise<TusUploadState | null>;
  /**
   * Takes the upload's write lease for `owner` until `until`, only if its offset is
   * `offset` and no other lease runs at `now`: a compare-and-set in the database, so two
   * PATCHes on any instances never both win. Answers whether it was taken.
   */
  takeTusLease(
    id: string,
    lease: { owner: string; offset: number; now: number; until: number },
  ): Promise<boolean>;
  /**
   * Records that the bytes up to `offset` are durable and renews `owner`'s lease until
   * `until` (null: gives it up); false (nothing changed) when the lease is no longer `owner`'s.
   */
  advanceTusUpload(
    id: string,
    lease: { owner: string; offset: number; until: number | null },
  ): Promise<boolean>;
  /** Renews `owner`'s lease until `until`, offset untouched; false when it is not `owner`'s. */
  renewTusLease(id: string, owner: string, until: number): Promise<boolean>;
  /** Gives the lease up if it is still `owner`'s. */
  releaseTusLease(id: string, owner: string): Promise<void>;

  /** Deleted rows whose bytes have not been removed yet, oldest deletion first. */
  listDeletedUnpurged(limit: number): Promise<FileRow[]>;
  /**
   * Rows still `receiving`, oldest first; with `leaseExpiredBefore`, only those whose lease
   * (`expiresAt`) ran out before it, so that another instance's upload in progress is left alone.
   */
  listReceiving(limit: number, leaseExpiredBefore?: number): Promise<FileRow[]>;
  markPurged(id: string): Promise<void>;
  /**
   * Ready images (`image/*`) without a placeholder, by id after `afterId` (null: from the
   * first), for `admin placeholders fill`.
   */
  listImagesWithoutPlaceholder(afterId: string | null, limit: number): Promise<FileRow[]>;
  /** Sets a ready file's placeholder if it has none yet; whether it did. */
  setPlaceholder(id: string, placeholder: string): Promise<boolean>;
  /** Ready files whose `deleteAt` is at or before `now`, soonest first. */
  listDueForDeletion(now: number, limit: number): Promise<FileRow[]>;
  /**
   * Records an import's progress and moves its lease (`expiresAt`) on; false when the row is
   * no longer a pending import (deleted meanwhile: the import stops).
   */
  recordImportProgress(id: string, state: ImportState, leaseUntil: number): Promise<boolean>;
  /**
   * Removes a pending import that failed: deleted (no longer listed, its room back to its
   * token) with its `importState` (the error) kept so `GET /v1/files/:id` can say why.
   * `event`: recorded in the same transaction, only if the row was a pending import. Answers
   * the row as it now is, or null.
   */
  failImport(
    id: string,
    at: number,
    state: ImportState,
    event?: EventDraft,
  ): Promise<FileRow | null>;
  /** A failed import of the project, if it failed after `since`. */
  getFailedImport(projectId: string, id: string, since: number): Promise<FileRow | null>;
  /** Pending imports whose lease ran out before `before` (their instance died), oldest first. */
  listAbandonedImports(before: number, limit: number): Promise<FileRow[]>;
  /** Pending uploads (imports excluded) whose expiry is before `before`, oldest first. */
  listExpiredPending(before: number, limit: number): Promise<FileRow[]>;
  /** Marks an abandoned pending upload deleted; false if it changed state meanwhile. */
  expirePending(id: string, at: number, event?: EventDraft): Promise<boolean>;

  /** The stored variant `name` of a file, or null when none is recorded. */
  getVariant(fileId: string, name: string): Promise<VariantRow | null>;
  /**
   * Records a variant just stored (or found stored), as served at `servedAt`, if its file is
   * ready, within its project's budget: the project's least recently served variants (ties
   * by file id, then name) are forgotten until the project's recorded variants hold at most
   * `budgetBytes`, this one included (callers never record one larger than the budget).
   * Atomic across connections: recordings for one project take turns, so the sum never
   * passes the budget. `recorded` false when the file is not ready (deleted meanwhile: the
   * variant must go); `evicted`: the variants forgotten, whose objects the caller removes.
   */
  recordVariant(
    variant: VariantRow,
    projectId: string,
    budgetBytes: number,
  ): Promise<RecordedVariant>;
  /** Moves a variant's last serving to `at` if it was recorded as served before `before`. */
  touchVariant(fileId: string, name: string, at: number, before: number): Promise<void>;
  /**
   * The names of a file's variants past the `keep` most recently served (ties by name), the
   * ones to remove so that at most `keep` stay.
   */
  variantsBeyond(fileId: string, keep: number): Promise<string[]>;
  /** Forgets one variant; false when it was not recorded (another instance removed it). */
  removeVariant(fileId: string, name: string): Promise<boolean>;
  /** Forgets every variant of a file (its purge). */
  removeVariants(fileId: string): Promise<void>;

  /** Registers an endpoint unless the project has `max` already (then false). */
  createWebhook(webhook: WebhookRow, max: number): Promise<boolean>;
  /** A project's endpoints, oldest first. */
  listWebhooks(projectId: string): Promise<WebhookRow[]>;
  /** Removes an endpoint and its deliveries; false if the project has none of that id. */
  deleteWebhook(projectId: string, id: string): Promise<boolean>;
  /** A project's events, newest first, strictly after `after` in (createdAt desc, id desc). */
  listEvents(projectId: string, after: ListPosition | null, limit: number): Promise<EventRow[]>;
  /**
   * Queues an event again for every endpoint of its project that wants its type, due at
   * `at`, with a fresh schedule; false if the project has no such event.
   */
  redeliverEvent(projectId: string, id: string, at: number): Promise<boolean>;
  /**
   * Claims deliveries due at `now` for `owner` until `leaseUntil`: each claimed by exactly
   * one caller however many instances claim at once; one whose lease ran out (its instance
   * died mid-attempt) is due again.
   */
  claimDeliveries(
    now: number,
    leaseUntil: number,
    owner: string,
    limit: number,
  ): Promise<ClaimedDelivery[]>;
  /** Records an attempt's outcome, if its claim still holds the delivery's lease. */
  finishAttempt(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void>;
  /** Deliveries still pending, and the earliest due time among them (metrics). */
  outboxBacklog(): Promise<{ pending: number; oldestDueAt: number | null }>;
  /** Removes up to `limit` events made before `before`, with their deliveries; how many. */
  removeEventsBefore(before: number, limit: number): Promise<number>;

  /**
   * A value kept once for every instance sharing this store (the URL signing secret, the
   * default project's id): stores `value` under `name` unless a value is stored already,
   * and answers the stored one, so instances starting at once agree.
   */
  initSetting(name: string, value: string): Promise<string>;
  getSetting(name: string): Promise<string | null>;

  /**
   * Runs `task` only if no other holder of the lock `name` (in this process or any other
   * instance sharing the store) is running one; answers `{ ran: false }` at once otherwise.
   * Background clean-up uses it so that one instance at a time does it.
   */
  runExclusive<T>(
    name: string,
    task: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false }>;
}

/** Where a tus upload stands (`MetadataStore.getTusUpload`). */
export interface TusUploadState {
  /** Bytes received durably: what `HEAD` answers as `Upload-Offset`. */
  offset: number;
  /** The PATCH that holds the write lease, if one does (until `leaseUntil`). */
  leaseOwner: string | null;
  leaseUntil: number | null;
}
