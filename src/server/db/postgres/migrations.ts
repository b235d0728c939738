/**
 * PostgreSQL schema migrations, applied in order under an advisory lock; version `n`
 * (1-based) is recorded in `schema_migrations` once its statements have committed.
 * Append only: a shipped migration is never edited, since databases that ran it keep it.
 *
 * The same tables as the SQLite store, minus `upload_parts` (parts are the blob store's to
 * know), with these differences:
 * - Ids are `COLLATE "C"`, so listing order (and the listing index) compares them in byte
 *   order whatever collation the database was created with; clients page by id.
 * - Times and sizes are `bigint` (milliseconds since the epoch overflow `integer`).
 * - JSON columns are `json`, not `jsonb`: `json` keeps the document as it was sent, key
 *   order included, as the SQLite store does.
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE projects (
    id text COLLATE "C" PRIMARY KEY,
    name text NOT NULL,
    plan text NOT NULL CHECK (plan IN ('free', 'paid')),
    allowed_origins json NOT NULL DEFAULT '[]',
    created_at bigint NOT NULL
  );
  CREATE TABLE api_keys (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES projects (id),
    kind text NOT NULL CHECK (kind IN ('secret', 'publishable')),
    hash text COLLATE "C" NOT NULL UNIQUE,
    hint text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint
  );
  CREATE INDEX api_keys_project ON api_keys (project_id);
  CREATE TABLE files (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES projects (id),
    name text NOT NULL,
    mime text NOT NULL,
    size bigint NOT NULL,
    created_at bigint NOT NULL,
    status text NOT NULL CHECK (status IN ('receiving', 'pending', 'ready', 'deleted')),
    metadata json NOT NULL DEFAULT '{}',
    part_size bigint,
    storage_upload_id text,
    expires_at bigint,
    deleted_at bigint,
    purged boolean NOT NULL DEFAULT false
  );
  -- Keyset paging: (created_at, id) descending within a project, visible rows only, so a
  -- page is an index walk from the cursor at any depth.
  CREATE INDEX files_listing ON files (project_id, created_at DESC, id DESC)
    WHERE status IN ('pending', 'ready');
  CREATE INDEX files_pending_expiry ON files (expires_at) WHERE status = 'pending';
  CREATE INDEX files_unpurged ON files (deleted_at) WHERE status = 'deleted' AND NOT purged;
  CREATE INDEX files_receiving ON files (created_at) WHERE status = 'receiving';
  CREATE TABLE settings (
    name text COLLATE "C" PRIMARY KEY,
    value text NOT NULL
  );
  -- Rate-limit token buckets shared by every instance. "taken" records whether the last
  -- take was allowed: the single statement that takes a token answers with it. Times are
  -- double precision here: the limiter's clock is any JS number, kept exactly.
  CREATE TABLE rate_buckets (
    key text COLLATE "C" PRIMARY KEY,
    tokens double precision NOT NULL,
    updated_at double precision NOT NULL,
    taken boolean NOT NULL
  );
  `,
  // Multi-step uploads signed with checksums: the digest their part PUTs must carry, so
  // that URLs signed afresh (resume) require it too. Null: no checksum. A nullable column
  // added: instances of the version before keep working on the migrated table.
  `
  ALTER TABLE files ADD COLUMN checksum text CHECK (checksum IN ('sha256', 'md5'));
  `,
  // Who may act on a pending upload: the hash of the token its sign answered (null for
  // rows that were never signed, or signed before tokens). The ETags a multi-step upload
  // was completed with, so a later complete naming others is a conflict. Nullable columns:
  // instances of the version before keep working on the migrated table.
  `
  ALTER TABLE files ADD COLUMN upload_token_hash text, ADD COLUMN completed_parts json;
  `,
  // The media types a project accepts; null: every type.
  `
  ALTER TABLE projects ADD COLUMN allowed_types json;
  `,
  // A project's own limits (null: its plan's; 0: none), and what usage sums up: the rows
  // of one project that hold or reserve bytes.
  `
  ALTER TABLE projects ADD COLUMN storage_quota bigint, ADD COLUMN max_pending_uploads integer;
  CREATE INDEX files_usage ON files (project_id, status, size)
    WHERE status IN ('pending', 'receiving', 'ready');
  `,
  // Rows the sweeper picks are ordered with ties broken by id, and each index walks in
  // that order.
  `
  DROP INDEX files_unpurged;
  CREATE INDEX files_unpurged ON files (deleted_at, id) WHERE status = 'deleted' AND NOT purged;
  DROP INDEX files_pending_expiry;
  CREATE INDEX files_pending_expiry ON files (expires_at, id) WHERE status = 'pending';
  DROP INDEX files_receiving;
  CREATE INDEX files_receiving ON files (created_at, id) WHERE status = 'receiving';
  `,
  // Events (webhooks): see the SQLite migration of the same step.
  `
  CREATE TABLE webhooks (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES projects (id),
    url text NOT NULL,
    events text NOT NULL,
    secret text NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX webhooks_project ON webhooks (project_id, created_at, id);
  CREATE TABLE events (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL,
    type text NOT NULL,
    created_at bigint NOT NULL,
    data json NOT NULL
  );
  CREATE INDEX events_listing ON events (project_id, created_at DESC, id DESC);
  CREATE INDEX events_age ON events (created_at, id);
  CREATE TABLE deliveries (
    event_id text COLLATE "C" NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    webhook_id text COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at bigint,
    lease_until bigint,
    lease_owner text,
    last_status integer,
    last_error text,
    PRIMARY KEY (event_id, webhook_id)
  );
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at, event_id, webhook_id)
    WHERE status = 'pending';
  CREATE INDEX deliveries_webhook ON deliveries (webhook_id);
  CREATE INDEX deliveries_lease ON deliveries (lease_owner) WHERE lease_owner IS NOT NULL;
  `,
  // Private files (served only through signed CDN links). A column with a constant default
  // is added without rewriting the table, and instances of the version before (which do not
  // name it) keep working on the migrated table: their rows are public, as they were.
  `
  ALTER TABLE files ADD COLUMN visibility text NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'private'));
  `,
  // Upload tokens: see the SQLite migration of the same step. Columns without a default
  // are added without rewriting the table; the indexes are built concurrently-safe enough
  // for a table this service keeps (one statement each, under the migration lock).
  `
  CREATE TABLE upload_tokens (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES projects (id),
    hash text NOT NULL UNIQUE,
    policy json NOT NULL,
    expires_at bigint NOT NULL,
    created_at bigint NOT NULL
  );
  ALTER TABLE files ADD COLUMN delete_at bigint;
  ALTER TABLE files ADD COLUMN token_id text COLLATE "C";
  ALTER TABLE files ADD COLUMN anonymous_address text;
  CREATE INDEX files_token ON files (token_id) WHERE token_id IS NOT NULL;
  CREATE INDEX files_anonymous ON files (project_id, anonymous_address)
    WHERE anonymous_address IS NOT NULL AND status IN ('pending', 'receiving');
  CREATE INDEX files_delete_at ON files (delete_at, id)
    WHERE status = 'ready' AND delete_at IS NOT NULL;
  ALTER TABLE projects ADD COLUMN require_upload_token integer NOT NULL DEFAULT 0;
  `,
  // Image variants kept beside ready files (#41): at most 64 a file, the least recently
  // served removed first, their bytes shown in usage. `served_at` is kept to the minute or
  // so (a write per serving would cost more than the serving). A new table: instances of
  // the version before never touch it.
  `
  CREATE TABLE variants (
    file_id text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL,
    project_id text COLLATE "C" NOT NULL,
    size bigint NOT NULL,
    served_at bigint NOT NULL,
    PRIMARY KEY (file_id, name)
  );
  CREATE INDEX variants_served ON variants (file_id, served_at DESC, name DESC);
  CREATE INDEX variants_project ON variants (project_id);
  `,
  // Safe ingest: when clamd found a file clean (ms); null for files made ready without a
  // scanner, and for every row made before. A nullable column without a default is added
  // without rewriting the table.
  `
  ALTER TABLE files ADD COLUMN scanned_at bigint;
  `,
  // Imports from a URL: a pending import's progress, and a failed one's error, kept with
  // its row (the row's expires_at is the lease of the instance fetching it).
  `
  ALTER TABLE files ADD COLUMN import_state json;
  CREATE INDEX files_imports ON files (expires_at, id)
    WHERE status = 'pending' AND import_state IS NOT NULL;
  `,
  // The anonymous share counts what is stored: see the SQLite migration of the same step.
  // Dropping and creating an index and adding a nullable column rewrite no table; instances
  // of the version before keep working (they clear the address of rows they make ready,
  // which then count as the owner's, as rows made ready before this step do).
  `
  DROP INDEX files_anonymous;
  CREATE INDEX files_anonymous ON files (project_id, anonymous_address, created_at)
    WHERE anonymous_address IS NOT NULL AND status IN ('pending', 'receiving', 'ready');
  ALTER TABLE projects ADD COLUMN anonymous_share double precision
    CHECK (anonymous_share BETWEEN 0 AND 1);
  `,
  // Variants are a bounded cache (#51): each project's variant bytes kept by a trigger (so
  // no path that adds or removes a variant can forget them), read in one row to decide
  // whether to evict; the least recently served found in this index.
  `
  DROP INDEX variants_project;
  CREATE INDEX variants_project_served ON variants (project_id, served_at, file_id, name, size);
  CREATE TABLE variant_usage (
    project_id text PRIMARY KEY,
    bytes bigint NOT NULL
  );
  INSERT INTO variant_usage (project_id, bytes)
    SELECT project_id, sum(size) FROM variants GROUP BY project_id;
  CREATE FUNCTION variant_usage_count() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      UPDATE variant_usage SET bytes = bytes - OLD.size WHERE project_id = OLD.project_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      INSERT INTO variant_usage (project_id, bytes) VALUES (NEW.project_id, NEW.size)
        ON CONFLICT (project_id) DO UPDATE SET bytes = variant_usage.bytes + excluded.bytes;
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER variants_counted AFTER INSERT OR DELETE OR UPDATE OF size ON variants
    FOR EACH ROW EXECUTE FUNCTION variant_usage_count();
  `,
  // Placeholders: see the SQLite migration of the same step. A nullable column rewrites no
  // table; instances of the version before make images ready without one, which
  // `admin placeholders fill` computes afterwards.
  `
  ALTER TABLE files ADD COLUMN placeholder text;
  `,
  // tus: see the SQLite migration of the same step.
  `
  CREATE TABLE tus_uploads (
    file_id text PRIMARY KEY,
    upload_offset bigint NOT NULL,
    lease_owner text,
    lease_until bigint
  );
  `,
  // tus: see the SQLite migration of the same step (a state goes with its pending upload).
  `
  CREATE FUNCTION tus_state_end() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM tus_uploads WHERE file_id = OLD.id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER tus_state_ends AFTER UPDATE OF status ON files
    FOR EACH ROW WHEN (OLD.status = 'pending' AND NEW.status <> 'pending')
    EXECUTE FUNCTION tus_state_end();
  CREATE TRIGGER tus_state_gone AFTER DELETE ON files
    FOR EACH ROW EXECUTE FUNCTION tus_state_end();
  DELETE FROM tus_uploads
    WHERE file_id NOT IN (SELECT id FROM files WHERE status = 'pending');
  `,
];
