import { FILE_COLUMNS } from './records.js';

/**
 * Every statement both SQL stores run, written once with `?` placeholders (PostgreSQL's
 * store numbers them, see `numberedPlaceholders`). Only standard SQL that SQLite 3.35+ and
 * PostgreSQL 13+ both read the same way: `CAST` rather than `::`, `TRUE`/`NOT purged`
 * rather than 0/1, and every parameter in a place where PostgreSQL can infer its type.
 * What is really one dialect's (PostgreSQL's row lock and the old row of a delete) stays
 * in its store, beside the reason.
 *
 * Orders that pick rows break ties by id, so both stores answer the same rows in the same
 * order whatever order they were inserted in.
 */

const VISIBLE = `status IN ('pending', 'ready')`;

export const PROJECT_INSERT = `INSERT INTO projects
  (id, name, plan, allowed_origins, allowed_types, storage_quota, max_pending_uploads, created_at,
   require_upload_token, anonymous_share)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * One statement, so two concurrent patches of different fields both land. A field is
 * changed when its flag (1) says it was given: `coalesce` alone could not set a field to
 * null (`allowedTypes: null` removes the list).
 */
export const PROJECT_UPDATE = `UPDATE projects SET
    name = coalesce(?, name),
    plan = coalesce(?, plan),
    allowed_origins = coalesce(?, allowed_origins),
    allowed_types = CASE WHEN CAST(? AS INTEGER) = 1 THEN ? ELSE allowed_types END,
    storage_quota = CASE WHEN CAST(? AS INTEGER) = 1 THEN ? ELSE storage_quota END,
    max_pending_uploads = CASE WHEN CAST(? AS INTEGER) = 1 THEN ? ELSE max_pending_uploads END,
    require_upload_token = coalesce(CAST(? AS INTEGER), require_upload_token),
    anonymous_share = CASE WHEN CAST(? AS INTEGER) = 1 THEN CAST(? AS DOUBLE PRECISION)
      ELSE anonymous_share END
  WHERE id = ? RETURNING *`;

export const PROJECT_BY_ID = 'SELECT * FROM projects WHERE id = ?';
export const PROJECTS = 'SELECT * FROM projects ORDER BY created_at, id';

export const KEY_INSERT = `INSERT INTO api_keys (id, project_id, kind, hash, hint, created_at, revoked_at)
  VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** A live key with its project's columns, prefixed `p_`. */
export const LIVE_KEY_BY_HASH = `SELECT k.*, p.name AS p_name, p.plan AS p_plan,
    p.allowed_origins AS p_allowed_origins, p.allowed_types AS p_allowed_types,
    p.storage_quota AS p_storage_quota, p.max_pending_uploads AS p_max_pending_uploads,
    p.require_upload_token AS p_require_upload_token, p.anonymous_share AS p_anonymous_share,
    p.created_at AS p_created_at
  FROM api_keys k JOIN projects p ON p.id = k.project_id
  WHERE k.hash = ? AND k.revoked_at IS NULL`;

export const UPLOAD_TOKEN_COLUMNS = 'id, project_id, hash, policy, expires_at, created_at';

export const UPLOAD_TOKEN_INSERT = `INSERT INTO upload_tokens (${UPLOAD_TOKEN_COLUMNS})
  VALUES (?, ?, ?, ?, ?, ?)`;

/** A token with its project's columns, prefixed `p_` (as `LIVE_KEY_BY_HASH`). */
export const UPLOAD_TOKEN_BY_HASH = `SELECT t.*, p.name AS p_name, p.plan AS p_plan,
    p.allowed_origins AS p_allowed_origins, p.allowed_types AS p_allowed_types,
    p.storage_quota AS p_storage_quota, p.max_pending_uploads AS p_max_pending_uploads,
    p.require_upload_token AS p_require_upload_token, p.anonymous_share AS p_anonymous_share,
    p.created_at AS p_created_at
  FROM upload_tokens t JOIN projects p ON p.id = t.project_id
  WHERE t.hash = ?`;

export const UPLOAD_TOKEN_BY_ID = `SELECT ${UPLOAD_TOKEN_COLUMNS} FROM upload_tokens WHERE id = ?`;

/**
 * What a token's uploads hold (token id, now): every row still tied to it (ready, being
 * received, deleted after it was ready), but a pending one only until it expires. Rows whose
 * room came back (aborted, refused, expired) are no longer tied to it (`token_id` cleared).
 */
export const TOKEN_USAGE = `SELECT count(*) AS files, coalesce(sum(size), 0) AS bytes
  FROM files WHERE token_id = ? AND (status <> 'pending' OR expires_at > CAST(? AS BIGINT))`;

/**
 * What one address group's anonymous files hold (window start, project id, address, now,
 * window start): its pending uploads, and the bytes of those it started since the window's
 * start that are pending, being received or ready. A pending one holds nothing past its
 * expiry; a ready one started before the window no longer counts (nor is read).
 */
export const ADDRESS_USAGE = `SELECT
    coalesce(sum(CASE WHEN created_at > CAST(? AS BIGINT) THEN size ELSE 0 END), 0) AS address_bytes,
    count(CASE WHEN status = 'pending' THEN 1 END) AS address_uploads
  FROM files WHERE project_id = ? AND anonymous_address = ?
    AND status IN ('pending', 'receiving', 'ready')
    AND (status <> 'pending' OR expires_at > CAST(? AS BIGINT))
    AND (status <> 'ready' OR created_at > CAST(? AS BIGINT))`;

/** `ADDRESS_USAGE`'s values for one address group's window of `windowMs` up to `now`. */
export function addressUsageValues(
  projectId: string,
  address: string,
  now: number,
  windowMs: number,
): (string | number)[] {
  const since = now - windowMs;
  return [since, projectId, address, now, since];
}

export const KEYS_OF_PROJECT =
  'SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, id';
export const KEY_REVOKE = 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL';

/** `count` rows of `FILE_COLUMNS` in one statement. */
export function fileInsert(count: number): string {
  const row = `(${FILE_COLUMNS.split(',')
    .map(() => '?')
    .join(', ')})`;
  return `INSERT INTO files (${FILE_COLUMNS}) VALUES ${Array(count).fill(row).join(', ')}`;
}

/**
 * What a project holds (project id, now): ready files, and the bytes and count of uploads
 * not finished (pending, and one-request uploads receiving their bytes); of all of them,
 * what anonymous files hold. A pending upload past its expiry holds nothing: its room comes
 * back then, not when the sweeper removes it.
 */
export const PROJECT_USAGE = `SELECT
    coalesce(sum(CASE WHEN status = 'ready' THEN size ELSE 0 END), 0) AS stored_bytes,
    count(CASE WHEN status = 'ready' THEN 1 END) AS files,
    coalesce(sum(CASE WHEN status IN ('pending', 'receiving') THEN size ELSE 0 END), 0) AS pending_bytes,
    count(CASE WHEN status = 'pending' THEN 1 END) AS pending_uploads,
    coalesce(sum(CASE WHEN anonymous_address IS NOT NULL THEN size ELSE 0 END), 0) AS anonymous_bytes,
    count(CASE WHEN status = 'pending' AND anonymous_address IS NOT NULL THEN 1 END) AS anonymous_uploads
  FROM files WHERE project_id = ? AND status IN ('pending', 'receiving', 'ready')
    AND (status <> 'pending' OR expires_at > CAST(? AS BIGINT))`;

/** Bytes of the variants of a project's ready files: project id. */
export const PROJECT_VARIANT_BYTES = `SELECT coalesce(sum(v.size), 0) AS variant_bytes
  FROM variants v JOIN files f ON f.id = v.file_id
  WHERE v.project_id = ? AND f.status = 'ready'`;

// Image variants (variants/stored-variant.ts): one row per derived object kept.

export const VARIANT = 'SELECT name, size, served_at FROM variants WHERE file_id = ? AND name = ?';

/**
 * Records a variant only while its file is ready (a delete that already purged it then
 * leaves no row behind): name, size, served at, file id. Recording it again (two instances
 * made it at once) keeps one row.
 */
export const VARIANT_RECORD = `INSERT INTO variants (file_id, name, project_id, size, served_at)
  SELECT id, ?, project_id, CAST(? AS BIGINT), CAST(? AS BIGINT) FROM files
  WHERE id = ? AND status = 'ready'
  ON CONFLICT (file_id, name) DO UPDATE SET size = excluded.size, served_at = excluded.served_at`;

/**
 * Forgets a project's least recently served variants, oldest first (ties by file id, then
 * name), until its variants (`variant_usage`, kept by triggers) hold at most the budget;
 * never the variant being recorded, which the caller keeps. Looks at the oldest `limit`
 * only, so that a project of a hundred thousand variants costs what one of ten does: past
 * them, the caller runs it again. Nothing when the project is within its budget. Project
 * id, file id, name, limit, project id, budget; answers what it forgot. (The rows go by
 * their primary key: a filter on the project there would scan all of its variants.)
 */
export const VARIANTS_OVER_BUDGET = `DELETE FROM variants WHERE (file_id, name) IN (
    SELECT file_id, name FROM (
      SELECT file_id, name, size,
        sum(size) OVER (ORDER BY served_at, file_id, name) AS freed
      FROM (
        SELECT file_id, name, size, served_at FROM variants
        WHERE project_id = ? AND NOT (file_id = ? AND name = ?)
        ORDER BY served_at, file_id, name LIMIT ?
      ) oldest
    ) running
    WHERE freed - size < (SELECT bytes FROM variant_usage WHERE project_id = ?) - CAST(? AS BIGINT)
  ) RETURNING file_id, name`;

/** How many variants `VARIANTS_OVER_BUDGET` looks at (and so forgets, at most) at a time. */
export const EVICTION_BATCH = 64;

/** at, file id, name, before. */
export const VARIANT_TOUCH = `UPDATE variants SET served_at = ?
  WHERE file_id = ? AND name = ? AND served_at < ?`;

/** Most recently served first, ties by name: file id, how many, how many to skip. */
export const VARIANTS_BEYOND = `SELECT name FROM variants WHERE file_id = ?
  ORDER BY served_at DESC, name DESC LIMIT ? OFFSET ?`;

export const VARIANT_REMOVE = 'DELETE FROM variants WHERE file_id = ? AND name = ?';
export const VARIANTS_REMOVE = 'DELETE FROM variants WHERE file_id = ?';

export const VISIBLE_FILE = `SELECT ${FILE_COLUMNS} FROM files
  WHERE id = ? AND project_id = ? AND ${VISIBLE}`;

export const LIVE_FILE = `SELECT ${FILE_COLUMNS} FROM files WHERE id = ? AND status != 'deleted'`;

/** The first page of a project's listing: project id, limit. */
export const LIST_FIRST_PAGE = `SELECT ${FILE_COLUMNS} FROM files
  WHERE project_id = ? AND ${VISIBLE}
  ORDER BY created_at DESC, id DESC LIMIT ?`;

/**
 * A later page: project id, the position (created_at, id) to continue after, limit. The
 * row-value comparison is one range condition on the `files_listing` index, so the page
 * starts at the cursor in the index instead of skipping the rows before it, at any depth
 * (each store's test EXPLAINs exactly this text). Ids compare bytewise in both stores
 * (SQLite's BINARY collation, PostgreSQL's `COLLATE "C"`), as cursors need.
 */
export const LIST_AFTER_POSITION = `SELECT ${FILE_COLUMNS} FROM files
  WHERE project_id = ? AND ${VISIBLE} AND (created_at, id) < (?, ?)
  ORDER BY created_at DESC, id DESC LIMIT ?`;

/**
 * A file deleted before it was ready (an aborted or refused upload) gives its room back to
 * the token that signed it; one deleted once ready still counts as one of the token's files.
 */
export const TOKEN_RELEASE = `CASE WHEN status = 'ready' THEN token_id ELSE NULL END`;

/**
 * Parameters: name, mime, size, metadata, created_at, completed_parts, visibility,
 * scanned_at (null: kept), placeholder (null: kept), id, from. An anonymous file stays anonymous once ready: it keeps
 * counting in the anonymous share, and in its address's allowance for the window.
 */
export const FILE_MARK_READY = `UPDATE files SET status = 'ready',
    name = coalesce(?, name), mime = coalesce(?, mime), size = coalesce(?, size),
    metadata = coalesce(?, metadata), created_at = coalesce(?, created_at),
    completed_parts = coalesce(?, completed_parts), visibility = coalesce(?, visibility),
    scanned_at = coalesce(?, scanned_at), placeholder = coalesce(?, placeholder)
  WHERE id = ? AND status = ? RETURNING ${FILE_COLUMNS}`;

/**
 * A file the scanner found infected: deleted (its bytes purged later) from the given state;
 * it was never ready, so the token that signed it gets its room back.
 */
export const FILE_MARK_INFECTED = `UPDATE files SET status = 'deleted', deleted_at = ?,
    token_id = ${TOKEN_RELEASE}
  WHERE id = ? AND status = ? RETURNING ${FILE_COLUMNS}`;

export const FILE_MARK_DELETED = `UPDATE files SET status = 'deleted', deleted_at = ?,
    token_id = ${TOKEN_RELEASE}
  WHERE id = ?`;

export const RECEIVING_DISCARD = `DELETE FROM files WHERE id = ? AND status = 'receiving'`;

export const EXPIRY_EXTEND = `UPDATE files SET expires_at = ?
  WHERE id = ? AND status IN ('pending', 'receiving')`;

export const STORAGE_UPLOAD_ID_SET = 'UPDATE files SET storage_upload_id = ? WHERE id = ?';

/** Oldest deletion first: limit. */
export const DELETED_UNPURGED = `SELECT ${FILE_COLUMNS} FROM files
  WHERE status = 'deleted' AND NOT purged
  ORDER BY deleted_at, id LIMIT ?`;

/**
 * Oldest first: the lease bound twice (null: every row), limit. A receiving row without a
 * lease has no instance vouching for it: it counts as expired, or nothing would ever clean
 * it up.
 */
export const RECEIVING = `SELECT ${FILE_COLUMNS} FROM files
  WHERE status = 'receiving'
    AND (CAST(? AS BIGINT) IS NULL OR coalesce(expires_at, 0) < CAST(? AS BIGINT))
  ORDER BY created_at, id LIMIT ?`;

export const PURGED_MARK = `UPDATE files SET purged = TRUE WHERE id = ? AND status = 'deleted'`;

/** Soonest expiry first: before, limit. */
export const EXPIRED_PENDING = `SELECT ${FILE_COLUMNS} FROM files
  WHERE status = 'pending' AND expires_at < ? AND import_state IS NULL
  ORDER BY expires_at, id LIMIT ?`;

/**
 * An import's progress and its lease (state, lease, id): the instance fetching it writes
 * both while the row is a pending import; a row deleted meanwhile changes nothing.
 */
export const IMPORT_PROGRESS = `UPDATE files SET import_state = ?, expires_at = ?
  WHERE id = ? AND status = 'pending' AND import_state IS NOT NULL`;

/**
 * A failed import leaves (deleted_at, state, id): no longer listed or counted, its room back
 * to its token (as a refused upload's), its error kept for `GET /v1/files/:id`.
 */
export const IMPORT_FAIL = `UPDATE files SET status = 'deleted', deleted_at = ?, token_id = NULL,
    import_state = ?
  WHERE id = ? AND status = 'pending' AND import_state IS NOT NULL RETURNING ${FILE_COLUMNS}`;

/** A failed import (id, project id, failed after). */
export const FAILED_IMPORT = `SELECT ${FILE_COLUMNS} FROM files
  WHERE id = ? AND project_id = ? AND status = 'deleted' AND import_state IS NOT NULL
    AND deleted_at > CAST(? AS BIGINT)`;

/** Pending imports whose lease ran out (before, limit): their instance died. */
export const ABANDONED_IMPORTS = `SELECT ${FILE_COLUMNS} FROM files
  WHERE status = 'pending' AND import_state IS NOT NULL AND expires_at < CAST(? AS BIGINT)
  ORDER BY expires_at, id LIMIT ?`;

export const PENDING_EXPIRE = `UPDATE files SET status = 'deleted', deleted_at = ?, token_id = NULL
  WHERE id = ? AND status = 'pending' RETURNING ${FILE_COLUMNS}`;

/** Ready files whose time has come, soonest first: now, limit. */
export const DUE_FOR_DELETION = `SELECT ${FILE_COLUMNS} FROM files
  WHERE status = 'ready' AND delete_at <= CAST(? AS BIGINT)
  ORDER BY delete_at, id LIMIT ?`;

/**
 * Answers the value only if this call inserted it. Someone else's value is then read by a
 * new statement on purpose: a SELECT in the INSERT's own statement would, on PostgreSQL,
 * use a snapshot taken before a concurrent inserter committed, and could miss the very row
 * the conflict was about.
 */
export const SETTING_INIT = `INSERT INTO settings (name, value) VALUES (?, ?)
  ON CONFLICT (name) DO NOTHING RETURNING value`;
export const SETTING = 'SELECT value FROM settings WHERE name = ?';

// Events (webhooks). A webhook's \`events\` column holds its types between commas
// (\`,file.ready,file.deleted,\`), so \`LIKE '%,<type>,%'\` picks the endpoints of a type.
// Values inserted through a SELECT are CAST: PostgreSQL would otherwise take them as text.

export const WEBHOOK_COLUMNS = 'id, project_id, url, events, secret, created_at';

/** Inserts unless the project has \`max\` endpoints: the row's six values, project id, max. */
export const WEBHOOK_INSERT = `INSERT INTO webhooks (${WEBHOOK_COLUMNS})
  SELECT ?, ?, ?, ?, ?, CAST(? AS BIGINT)
  WHERE (SELECT count(*) FROM webhooks WHERE project_id = ?) < CAST(? AS BIGINT)`;

export const WEBHOOKS_OF_PROJECT = `SELECT ${WEBHOOK_COLUMNS} FROM webhooks
  WHERE project_id = ? ORDER BY created_at, id`;

export const WEBHOOK_DELETE = 'DELETE FROM webhooks WHERE id = ? AND project_id = ?';

export const EVENT_INSERT = `INSERT INTO events (id, project_id, type, created_at, data)
  VALUES (?, ?, ?, ?, ?)`;

/**
 * One pending delivery of an event for each endpoint of its project that wants its type:
 * event id, due time, project id, \`%,<type>,%\`.
 */
export const DELIVERIES_FAN_OUT = `INSERT INTO deliveries (event_id, webhook_id, status, attempts, next_attempt_at)
  SELECT ?, id, 'pending', 0, CAST(? AS BIGINT) FROM webhooks
  WHERE project_id = ? AND events LIKE ?`;

export const EVENT_COLUMNS = 'id, project_id, type, created_at, data';

export const EVENTS_FIRST_PAGE = `SELECT ${EVENT_COLUMNS} FROM events
  WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`;

export const EVENTS_AFTER_POSITION = `SELECT ${EVENT_COLUMNS} FROM events
  WHERE project_id = ? AND (created_at, id) < (?, ?)
  ORDER BY created_at DESC, id DESC LIMIT ?`;

/** The deliveries of \`count\` events, by their ids. */
export function deliveriesOf(count: number): string {
  return `SELECT event_id, webhook_id, status, attempts, last_status FROM deliveries
  WHERE event_id IN (${Array(count).fill('?').join(', ')}) ORDER BY event_id, webhook_id`;
}

export const EVENT_OF_PROJECT = 'SELECT id FROM events WHERE id = ? AND project_id = ?';

/** Every delivery of an event due again with a fresh schedule: due time, event id. */
export const DELIVERIES_RESET = `UPDATE deliveries SET status = 'pending', attempts = 0,
    next_attempt_at = ?, lease_until = NULL, lease_owner = NULL
  WHERE event_id = ?`;

/**
 * Deliveries for endpoints registered after the event (redelivery): event id, due time,
 * event id, event id.
 */
export const DELIVERIES_MISSING = `INSERT INTO deliveries (event_id, webhook_id, status, attempts, next_attempt_at)
  SELECT ?, w.id, 'pending', 0, CAST(? AS BIGINT)
  FROM webhooks w JOIN events e ON e.project_id = w.project_id AND e.id = ?
  WHERE w.events LIKE '%,' || e.type || ',%'
    AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = ? AND d.webhook_id = w.id)`;

/**
 * Claims due deliveries for one caller: lease end, owner, now, now, limit. \`lock\` is
 * PostgreSQL's \`FOR UPDATE SKIP LOCKED\`, so instances claiming at once take different rows
 * (SQLite has one writer, which is the same guarantee).
 */
export function deliveriesClaim(lock: string): string {
  return `UPDATE deliveries SET lease_until = ?, lease_owner = ?
  WHERE (event_id, webhook_id) IN (
    SELECT event_id, webhook_id FROM deliveries
    WHERE status = 'pending' AND next_attempt_at <= ? AND coalesce(lease_until, 0) < ?
    ORDER BY next_attempt_at, event_id, webhook_id LIMIT ?${lock})`;
}

/** What the claimed deliveries of an owner need for their attempts. */
export const DELIVERIES_CLAIMED = `SELECT d.event_id, d.webhook_id, d.attempts, e.type,
    e.created_at, e.data, w.url, w.secret
  FROM deliveries d JOIN events e ON e.id = d.event_id JOIN webhooks w ON w.id = d.webhook_id
  WHERE d.lease_owner = ? ORDER BY d.next_attempt_at, d.event_id, d.webhook_id`;

/** status, next attempt, HTTP status, error, event id, webhook id, owner. */
export const ATTEMPT_FINISH = `UPDATE deliveries SET status = ?, attempts = attempts + 1,
    next_attempt_at = ?, lease_until = NULL, lease_owner = NULL, last_status = ?, last_error = ?
  WHERE event_id = ? AND webhook_id = ? AND lease_owner = ?`;

/** The webhook outbox's backlog (on the partial index of pending deliveries). */
export const OUTBOX_BACKLOG = `SELECT count(*) AS pending, min(next_attempt_at) AS oldest
  FROM deliveries WHERE status = 'pending'`;

/** Oldest first: before, limit. Their deliveries go with them (ON DELETE CASCADE). */
export const EVENTS_EXPIRE = `DELETE FROM events WHERE id IN (
    SELECT id FROM events WHERE created_at < ? ORDER BY created_at, id LIMIT ?)`;

/** Parameters: the id to start after ('' for the first), limit. */
export const IMAGES_WITHOUT_PLACEHOLDER = `SELECT ${FILE_COLUMNS} FROM files
  WHERE status = 'ready' AND placeholder IS NULL AND mime LIKE 'image/%' AND id > ?
  ORDER BY id LIMIT ?`;

/** Parameters: placeholder, id. A file made ready since keeps the one it was given then. */
export const PLACEHOLDER_SET = `UPDATE files SET placeholder = ?
  WHERE id = ? AND status = 'ready' AND placeholder IS NULL`;

/** tus uploads' state (`MetadataStore.createTusUpload` and the calls after it). */
export const TUS_INSERT = `INSERT INTO tus_uploads (file_id, upload_offset) VALUES (?, 0)`;
export const TUS_GET = `SELECT upload_offset, lease_owner, lease_until FROM tus_uploads
  WHERE file_id = ?`;
/** The compare-and-set of a PATCH: the offset it starts at, and no lease running. */
export const TUS_LEASE_TAKE = `UPDATE tus_uploads SET lease_owner = ?, lease_until = ?
  WHERE file_id = ? AND upload_offset = ? AND (lease_until IS NULL OR lease_until <= ?)`;
export const TUS_ADVANCE = `UPDATE tus_uploads SET upload_offset = ?, lease_until = ?
  WHERE file_id = ? AND lease_owner = ?`;
export const TUS_ADVANCE_RELEASE = `UPDATE tus_uploads
  SET upload_offset = ?, lease_owner = NULL, lease_until = NULL
  WHERE file_id = ? AND lease_owner = ?`;
export const TUS_LEASE_RENEW = `UPDATE tus_uploads SET lease_until = ?
  WHERE file_id = ? AND lease_owner = ?`;
export const TUS_LEASE_RELEASE = `UPDATE tus_uploads SET lease_owner = NULL, lease_until = NULL
  WHERE file_id = ? AND lease_owner = ?`;
