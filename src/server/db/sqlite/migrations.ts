/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
 * Append only: a shipped migration is never edited.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    plan TEXT NOT NULL CHECK (plan IN ('free', 'paid')),
    allowed_origins TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    kind TEXT NOT NULL CHECK (kind IN ('secret', 'publishable')),
    hash TEXT NOT NULL UNIQUE,
    hint TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX api_keys_project ON api_keys (project_id);
  CREATE TABLE files (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    name TEXT NOT NULL,
    mime TEXT NOT NULL,
    size INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('receiving', 'pending', 'ready', 'deleted')),
    metadata TEXT NOT NULL DEFAULT '{}',
    part_size INTEGER,
    storage_upload_id TEXT,
    expires_at INTEGER,
    deleted_at INTEGER,
    purged INTEGER NOT NULL DEFAULT 0
  );
  -- Keyset paging: (created_at, id) descending within a project, visible rows only.
  CREATE INDEX files_listing ON files (project_id, created_at DESC, id DESC)
    WHERE status IN ('pending', 'ready');
  CREATE INDEX files_pending_expiry ON files (expires_at) WHERE status = 'pending';
  CREATE INDEX files_unpurged ON files (deleted_at) WHERE status = 'deleted' AND purged = 0;
  CREATE INDEX files_receiving ON files (created_at) WHERE status = 'receiving';
  CREATE TABLE upload_parts (
    file_id TEXT NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    part_number INTEGER NOT NULL,
    size INTEGER NOT NULL,
    etag TEXT NOT NULL,
    PRIMARY KEY (file_id, part_number)
  ) WITHOUT ROWID;
  `,
  // Parts are the blob store's to know (it lists what it holds, as S3 does); the values
  // every instance must share (the URL signing secret at scale) live in settings.
  `
  DROP TABLE upload_parts;
  CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // Multi-step uploads signed with checksums: the digest their part PUTs must carry, so
  // that URLs signed afresh (resume) require it too. Null: no checksum.
  `
  ALTER TABLE files ADD COLUMN checksum TEXT CHECK (checksum IN ('sha256', 'md5'));
  `,
  // Who may act on a pending upload: the hash of the token its sign answered (null for
  // rows that were never signed, or signed before tokens). The ETags a multi-step upload
  // was completed with (JSON), so a later complete naming others is a conflict.
  `
  ALTER TABLE files ADD COLUMN upload_token_hash TEXT;
  ALTER TABLE files ADD COLUMN completed_parts TEXT;
  `,
  // The media types a project accepts (JSON list); null: every type.
  `
  ALTER TABLE projects ADD COLUMN allowed_types TEXT;
  `,
  // A project's own limits (null: its plan's; 0: none), and what usage sums up: the rows
  // of one project that hold or reserve bytes.
  `
  ALTER TABLE projects ADD COLUMN storage_quota INTEGER;
  ALTER TABLE projects ADD COLUMN max_pending_uploads INTEGER;
  CREATE INDEX files_usage ON files (project_id, status, size)
    WHERE status IN ('pending', 'receiving', 'ready');
  `,
  // Rows the sweeper picks are ordered with ties broken by id (as on PostgreSQL), and
  // each index walks in that order. \`NOT purged\`: the very term the shared statement uses,
  // which is what lets SQLite use a partial index.
  `
  DROP INDEX files_unpurged;
  CREATE INDEX files_unpurged ON files (deleted_at, id) WHERE status = 'deleted' AND NOT purged;
  DROP INDEX files_pending_expiry;
  CREATE INDEX files_pending_expiry ON files (expires_at, id) WHERE status = 'pending';
  DROP INDEX files_receiving;
  CREATE INDEX files_receiving ON files (created_at, id) WHERE status = 'receiving';
  `,
  // Events (webhooks): the endpoints a project registered; each event, written in the
  // transaction of the change it reports (the outbox); and one delivery of it per endpoint
  // that wants its type. \`events\` of a webhook: its types between commas (\`,file.ready,\`),
  // so that one standard \`LIKE\` picks the endpoints of a type in both databases.
  `
  CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX webhooks_project ON webhooks (project_id, created_at, id);
  CREATE TABLE events (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    type TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX events_listing ON events (project_id, created_at DESC, id DESC);
  CREATE INDEX events_age ON events (created_at, id);
  CREATE TABLE deliveries (
    event_id TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    lease_until INTEGER,
    lease_owner TEXT,
    last_status INTEGER,
    last_error TEXT,
    PRIMARY KEY (event_id, webhook_id)
  );
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at, event_id, webhook_id)
    WHERE status = 'pending';
  CREATE INDEX deliveries_webhook ON deliveries (webhook_id);
  CREATE INDEX deliveries_lease ON deliveries (lease_owner) WHERE lease_owner IS NOT NULL;
  `,
  // Private files (served only through signed CDN links). Rows made before keep the
  // default: every file was public.
  `
  ALTER TABLE files ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'private'));
  `,
  // Upload tokens (a project's backend decides who uploads what): only each token's hash
  // and its policy are kept. A file remembers the token that signed it while it counts
  // against the token's limits, the address of an anonymous reservation while it is
  // unfinished, and when it deletes itself. A project may require tokens.
  `
  CREATE TABLE upload_tokens (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    hash TEXT NOT NULL UNIQUE,
    policy TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  ALTER TABLE files ADD COLUMN delete_at INTEGER;
  ALTER TABLE files ADD COLUMN token_id TEXT;
  ALTER TABLE files ADD COLUMN anonymous_address TEXT;
  CREATE INDEX files_token ON files (token_id) WHERE token_id IS NOT NULL;
  CREATE INDEX files_anonymous ON files (project_id, anonymous_address)
    WHERE anonymous_address IS NOT NULL AND status IN ('pending', 'receiving');
  CREATE INDEX files_delete_at ON files (delete_at, id)
    WHERE status = 'ready' AND delete_at IS NOT NULL;
  ALTER TABLE projects ADD COLUMN require_upload_token INTEGER NOT NULL DEFAULT 0;
  `,
  // Image variants kept beside ready files (#41): at most 64 a file, the least recently
  // served removed first, their bytes shown in usage. `served_at` is kept to the minute or
  // so (a write per serving would cost more than the serving).
  `
  CREATE TABLE variants (
    file_id TEXT NOT NULL,
    name TEXT NOT NULL,
    project_id TEXT NOT NULL,
    size INTEGER NOT NULL,
    served_at INTEGER NOT NULL,
    PRIMARY KEY (file_id, name)
  );
  CREATE INDEX variants_served ON variants (file_id, served_at DESC, name DESC);
  CREATE INDEX variants_project ON variants (project_id);
  `,
  // Safe ingest: when clamd found a file clean (ms); null for files made ready without a
  // scanner, and for every row made before.
  `
  ALTER TABLE files ADD COLUMN scanned_at INTEGER;
  `,
  // Imports from a URL: a pending import's progress, and a failed one's error, kept with
  // its row (the row's expires_at is the lease of the instance fetching it).
  `
  ALTER TABLE files ADD COLUMN import_state TEXT;
  CREATE INDEX files_imports ON files (expires_at, id)
    WHERE status = 'pending' AND import_state IS NOT NULL;
  `,
  // The anonymous share counts what is stored (#51): an anonymous file keeps the address
  // group it came from once ready, which is what makes it anonymous, so the index covers
  // ready rows too, by address and time (an address's allowance over 24 hours). Ready files
  // made before this had their address cleared: they count as the owner's, since no row
  // says otherwise, and counting the owner's files as a stranger's would refuse visitors
  // for what the owner stored. A project's own share; null: the default.
  `
  DROP INDEX files_anonymous;
  CREATE INDEX files_anonymous ON files (project_id, anonymous_address, created_at)
    WHERE anonymous_address IS NOT NULL AND status IN ('pending', 'receiving', 'ready');
  ALTER TABLE projects ADD COLUMN anonymous_share REAL
    CHECK (anonymous_share BETWEEN 0 AND 1);
  `,
  // Variants are a bounded cache (#51): each project's variant bytes kept by triggers (so
  // no path that adds or removes a variant can forget them), read in one row to decide
  // whether to evict; the least recently served found in this index.
  `
  DROP INDEX variants_project;
  CREATE INDEX variants_project_served ON variants (project_id, served_at, file_id, name, size);
  CREATE TABLE variant_usage (
    project_id TEXT PRIMARY KEY,
    bytes INTEGER NOT NULL
  );
  INSERT INTO variant_usage (project_id, bytes)
    SELECT project_id, sum(size) FROM variants GROUP BY project_id;
  CREATE TRIGGER variants_added AFTER INSERT ON variants BEGIN
    INSERT INTO variant_usage (project_id, bytes) VALUES (NEW.project_id, NEW.size)
      ON CONFLICT (project_id) DO UPDATE SET bytes = bytes + excluded.bytes;
  END;
  CREATE TRIGGER variants_removed AFTER DELETE ON variants BEGIN
    UPDATE variant_usage SET bytes = bytes - OLD.size WHERE project_id = OLD.project_id;
  END;
  CREATE TRIGGER variants_resized AFTER UPDATE OF size ON variants BEGIN
    UPDATE variant_usage SET bytes = bytes - OLD.size + NEW.size
      WHERE project_id = NEW.project_id;
  END;
  `,
  // Placeholders (#58): a ready image's ThumbHash (base64), computed as it becomes ready;
  // null for other files, and for images made ready before this step until
  // `admin placeholders fill` computes theirs.
  `
  ALTER TABLE files ADD COLUMN placeholder TEXT;
  `,
  // tus (#56): where an upload through /v1/tus stands (its durable offset) and which PATCH
  // holds its write lease, so that two PATCHes at once cannot both write. Its own table:
  // only tus uploads have it, and a finished one forgets it.
  `
  CREATE TABLE tus_uploads (
    file_id TEXT PRIMARY KEY,
    upload_offset INTEGER NOT NULL,
    lease_owner TEXT,
    lease_until INTEGER
  );
  `,
  // tus: an upload's state goes with its pending upload, in the same transaction, whichever
  // way it stops being pending (finished, cancelled through tus or /v1/files, swept at
  // expiry, refused at the end) or its row goes; states left before this step go now.
  `
  CREATE TRIGGER tus_state_ends AFTER UPDATE OF status ON files
    WHEN OLD.status = 'pending' AND NEW.status <> 'pending'
    BEGIN DELETE FROM tus_uploads WHERE file_id = NEW.id; END;
  CREATE TRIGGER tus_state_gone AFTER DELETE ON files
    BEGIN DELETE FROM tus_uploads WHERE file_id = OLD.id; END;
  DELETE FROM tus_uploads
    WHERE file_id NOT IN (SELECT id FROM files WHERE status = 'pending');
  `,
];
