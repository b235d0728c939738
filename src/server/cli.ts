import { parseArgs } from 'node:util';
import { EVENT_TYPES, type EventType, MAX_WEBHOOKS } from '../api/events.js';
import { PLANS, type Plan } from '../api/limits.js';
import type { MetadataStore, Project } from './db/metadata-store.js';
import { newWebhookSecret } from './events/webhook-secret.js';
import { commandName } from './ground/command-name.js';
import { ConfigError, type ServiceConfig } from './ground/config.js';
import { newApiKey, newId } from './ground/secrets.js';
import { parseTargetUrl } from './ground/targets.js';
import { parseTypeList } from './ground/type-list.js';
import { fillPlaceholders } from './ingest/fill-placeholders.js';
import { anonymousShareOf, projectQuota } from './rules/quota.js';
import { createKey, createProject } from './start/admin.js';
import { configFromEnv, parseOrigins, parseShare } from './start/config-from-env.js';
import { openMetadataStore, openStores } from './start/deployment.js';

/** The admin command's help, in the words the user started it with (see commandName). */
function usage(command = commandName('admin')): string {
  const indent = ' '.repeat('  '.length + command.length + ' projects create '.length);
  return `Manage projects and keys of a filehost service: the SQLite database in
FILEHOST_DATA_DIR, or PostgreSQL when FILEHOST_DATABASE_URL is set.

  ${command} migrate
  ${command} keys generate
  ${command} bucket setup [--origins URL,URL]

  ${command} projects list
  ${command} projects create --name NAME [--plan free|paid] [--origins URL,URL]
${indent}[--types TYPE,TYPE] [--storage-quota BYTES] [--max-pending N]
${indent}[--anonymous-share SHARE] [--require-upload-token]
  ${command} projects set PROJECT_ID [--name NAME] [--plan free|paid] [--origins URL,URL]
${indent}[--types TYPE,TYPE] [--storage-quota BYTES] [--max-pending N]
${indent}[--anonymous-share SHARE]
${indent}[--require-upload-token | --no-require-upload-token]

--storage-quota, --max-pending: the project's limits (stored bytes and pending uploads'
signed sizes; pending uploads at once); 0 for none, plan for the plan's (free: 10 GB and
1,000; paid: none).
--anonymous-share: the part of those limits that files uploaded with the publishable key
and no upload token may hold together, 0 to 1 (default 0.5, or default); uploads with the
secret key or an upload token always have the rest.
--types: the media types the project accepts, e.g. image/*,application/pdf (declared at
sign, recognised from the bytes when complete); * for every type, the default.
--require-upload-token: uploads need an upload token its backend minted (POST
/v1/upload-tokens); the publishable key alone may still list and get files.
--no-require-upload-token turns that off again (the default).
  ${command} keys list PROJECT_ID
  ${command} keys create PROJECT_ID --kind secret|publishable
  ${command} keys revoke KEY_ID

  ${command} placeholders fill

placeholders fill: computes the placeholder (ThumbHash) of every ready image made before
placeholders existed; safe to run again, and while the service runs at scale (the
embedded service holds its data dir: stop it first).

  ${command} backup DIR
  ${command} restore DIR

backup: a consistent copy of the embedded data dir (the database, then the bytes of every
file it names) into DIR (new or empty), while the service runs. restore: fills an empty
FILEHOST_DATA_DIR from the backup in DIR, every byte checked; then start the service on it.
At scale back up PostgreSQL and the bucket instead (docs/running-at-scale.md).

  ${command} webhooks list PROJECT_ID
  ${command} webhooks create PROJECT_ID --url URL [--events TYPE,TYPE]
  ${command} webhooks delete PROJECT_ID WEBHOOK_ID

--events: file.ready, file.deleted, upload.expired (default: all). A new webhook's
signing secret is printed once, as the API shows it once.

A new key is printed once and never again: only its hash is stored.
Changes apply at once, also to a running service.`;
}

class UsageError extends Error {}

function parseTypes(raw: string): string[] | null {
  try {
    return parseTypeList(raw);
  } catch (error) {
    throw new UsageError(`--types: ${(error as Error).message}`);
  }
}

function describeTypes(types: string[] | null): string {
  return types ? types.join(', ') : 'any';
}

/** A limit option: a whole number (0: none), `plan` for the plan's (null), or absent. */
function limitOption(name: string, raw: string | undefined): number | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'plan') return null;
  if (!/^\d+$/.test(raw)) throw new UsageError(`${name} takes a whole number, 0 for none, or plan`);
  return Number(raw);
}

/** `--anonymous-share`: a decimal from 0 to 1, `default` for the default (null), or absent. */
function shareOption(raw: string | undefined): number | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'default') return null;
  const share = parseShare(raw);
  if (share === null)
    throw new UsageError('--anonymous-share takes a number from 0 to 1, or default');
  return share;
}

/** A project's limits as listings show them. */
function describeLimits(project: Project): string {
  const quota = projectQuota(project);
  const tokens = project.requireUploadToken ? ', upload token required' : '';
  return `quota: ${quota.storageBytes ?? 'none'} bytes, ${quota.pendingUploads ?? 'no cap on'} pending, anonymous share ${anonymousShareOf(project)}${tokens}`;
}

async function run(args: string[], db: MetadataStore): Promise<string> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      origins: { type: 'string' },
      types: { type: 'string' },
      'storage-quota': { type: 'string' },
      'max-pending': { type: 'string' },
      'anonymous-share': { type: 'string' },
      'require-upload-token': { type: 'boolean' },
      'no-require-upload-token': { type: 'boolean' },
      kind: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, action, target] = positionals;
  if (values.help || !group) return usage();
  const plan = values.plan === undefined ? undefined : parsePlan(values.plan);
  const origins = values.origins === undefined ? undefined : parseOrigins(values.origins);
  const types = values.types === undefined ? undefined : parseTypes(values.types);
  const storageQuota = limitOption('--storage-quota', values['storage-quota']);
  const maxPendingUploads = limitOption('--max-pending', values['max-pending']);
  const anonymousShare = shareOption(values['anonymous-share']);
  if (values['require-upload-token'] && values['no-require-upload-token']) {
    throw new UsageError('give --require-upload-token or --no-require-upload-token, not both');
  }
  const requireUploadToken = values['require-upload-token']
    ? true
    : values['no-require-upload-token']
      ? false
      : undefined;
  const limits = {
    ...(storageQuota !== undefined ? { storageQuota } : {}),
    ...(maxPendingUploads !== undefined ? { maxPendingUploads } : {}),
    ...(anonymousShare !== undefined ? { anonymousShare } : {}),
    ...(requireUploadToken !== undefined ? { requireUploadToken } : {}),
  };

  if (group === 'bucket' && action === 'setup') {
    const config = configFromEnv();
    if (!config.s3)
      throw new UsageError(
        'bucket setup needs FILEHOST_S3_BUCKET (and the other FILEHOST_S3_* settings)',
      );
    const allowed = origins ?? config.allowedOrigins;
    if (!allowed?.length) {
      throw new UsageError(
        "bucket setup needs the pages' origins: --origins or FILEHOST_ALLOWED_ORIGINS",
      );
    }
    const { configureBucket, ABORT_INCOMPLETE_AFTER_DAYS } = await import(
      './storage/s3/bucket-setup.js'
    );
    await configureBucket(config.s3, allowed);
    return [
      `Bucket ${config.s3.bucket}: CORS allows PUT from ${allowed.join(', ')} and exposes ETag;`,
      `multipart uploads left incomplete are aborted after ${ABORT_INCOMPLETE_AFTER_DAYS} days.`,
    ].join('\n');
  }
  if (group === 'migrate') {
    // Opening the store applied them (every instance also does at start, safely at once).
    return 'The database schema is up to date.';
  }
  if (group === 'projects' && action === 'list') {
    const projects = await db.listProjects();
    if (projects.length === 0) return 'No projects yet: `npm run server` creates a default one.';
    return projects
      .map(
        (p) =>
          `${p.id}  ${p.name}  (${p.plan})  origins: ${p.allowedOrigins.join(', ') || '(none)'}  types: ${describeTypes(p.allowedTypes)}  ${describeLimits(p)}`,
      )
      .join('\n');
  }
  if (group === 'projects' && action === 'create') {
    if (!values.name) throw new UsageError('projects create needs --name');
    const project = await createProject(db, {
      name: values.name,
      plan: plan ?? 'free',
      allowedOrigins: origins ?? [],
      allowedTypes: types ?? null,
      ...limits,
    });
    const secret = await createKey(db, project.id, 'secret');
    const publishable = await createKey(db, project.id, 'publishable');
    return [
      `Created ${project.id} (${project.plan}), origins: ${project.allowedOrigins.join(', ') || '(none)'}, types: ${describeTypes(project.allowedTypes)}, ${describeLimits(project)}`,
      `  Publishable key  ${publishable.key}`,
      `  Secret key       ${secret.key}`,
      'Keep the secret key on servers only. Neither key is shown again.',
    ].join('\n');
  }
  if (group === 'projects' && action === 'set') {
    if (!target) throw new UsageError('projects set needs a PROJECT_ID');
    const updated = await db.updateProject(target, {
      ...(values.name ? { name: values.name } : {}),
      ...(plan ? { plan } : {}),
      ...(origins ? { allowedOrigins: origins } : {}),
      ...(types !== undefined ? { allowedTypes: types } : {}),
      ...limits,
    });
    if (!updated) throw new UsageError(`No project ${target}`);
    return `${updated.id}  ${updated.name}  (${updated.plan})  origins: ${updated.allowedOrigins.join(', ') || '(none)'}  types: ${describeTypes(updated.allowedTypes)}  ${describeLimits(updated)}`;
  }
  if (group === 'keys' && action === 'list') {
    if (!target) throw new UsageError('keys list needs a PROJECT_ID');
    const keys = await db.listKeys(target);
    return keys
      .map(
        (k) =>
          `${k.id}  ${k.kind.padEnd(11)}  ${k.hint}  created ${new Date(k.createdAt).toISOString()}${k.revokedAt ? `  REVOKED ${new Date(k.revokedAt).toISOString()}` : ''}`,
      )
      .join('\n');
  }
  if (group === 'keys' && action === 'create') {
    if (!target) throw new UsageError('keys create needs a PROJECT_ID');
    if (values.kind !== 'secret' && values.kind !== 'publishable') {
      throw new UsageError('keys create needs --kind secret or --kind publishable');
    }
    if (!(await db.getProject(target))) throw new UsageError(`No project ${target}`);
    const { key, row } = await createKey(db, target, values.kind);
    return `${row.id}  ${row.kind}\n  ${key}\nThis is the only time the key is shown.`;
  }
  if (group === 'keys' && action === 'revoke') {
    if (!target) throw new UsageError('keys revoke needs a KEY_ID');
    if (!(await db.revokeKey(target, Date.now()))) throw new UsageError(`No live key ${target}`);
    return `Revoked ${target}`;
  }
  if (group === 'webhooks') return webhooks(db, action, target, positionals[3], values);
  throw new UsageError(`Unknown command: ${positionals.join(' ')}`);
}

async function webhooks(
  db: MetadataStore,
  action: string | undefined,
  projectId: string | undefined,
  webhookId: string | undefined,
  values: { url?: string; events?: string },
): Promise<string> {
  if (!projectId) throw new UsageError(`webhooks ${action ?? ''} needs a PROJECT_ID`);
  if (!(await db.getProject(projectId))) throw new UsageError(`No project ${projectId}`);
  if (action === 'list') {
    const hooks = await db.listWebhooks(projectId);
    return hooks.length === 0
      ? '(no webhooks)'
      : hooks.map((hook) => `${hook.id}  ${hook.url}  ${hook.events.join(',')}`).join('\n');
  }
  if (action === 'create') {
    const url = parseTargetUrl(values.url);
    if (typeof url === 'string') throw new UsageError(`--url: ${url}`);
    const events = parseEventList(values.events);
    const webhook = {
      id: newId('wh_'),
      projectId,
      url: url.href,
      events,
      secret: newWebhookSecret(),
      createdAt: Date.now(),
    };
    if (!(await db.createWebhook(webhook, MAX_WEBHOOKS))) {
      throw new UsageError(`A project has at most ${MAX_WEBHOOKS} webhooks`);
    }
    return `${webhook.id}  ${webhook.url}  ${events.join(',')}\n  ${webhook.secret}\nThis is the only time the secret is shown.`;
  }
  if (action === 'delete') {
    if (!webhookId) throw new UsageError('webhooks delete needs a WEBHOOK_ID');
    if (!(await db.deleteWebhook(projectId, webhookId))) {
      throw new UsageError(`No webhook ${webhookId} in ${projectId}`);
    }
    return `Deleted ${webhookId}`;
  }
  throw new UsageError(`Unknown command: webhooks ${action ?? ''}`);
}

function parseEventList(raw: string | undefined): EventType[] {
  if (raw === undefined) return [...EVENT_TYPES];
  const asked = raw.split(',').map((type) => type.trim());
  const unknown = asked.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0 || asked.length === 0) {
    throw new UsageError(`--events takes ${EVENT_TYPES.join(', ')}; not ${unknown.join(', ')}`);
  }
  return EVENT_TYPES.filter((type) => asked.includes(type));
}

function parsePlan(value: string): Plan {
  if (!PLANS.includes(value as Plan)) throw new UsageError(`--plan must be ${PLANS.join(' or ')}`);
  return value as Plan;
}

/**
 * A fresh pair of keys, stored nowhere: at scale every instance is given the same pair
 * (FILEHOST_SECRET_KEY, FILEHOST_PUBLISHABLE_KEY) for the default project.
 */
function generateKeys(): string {
  return [
    `FILEHOST_SECRET_KEY=${newApiKey('secret')}`,
    `FILEHOST_PUBLISHABLE_KEY=${newApiKey('publishable')}`,
    'Give both to every instance. The secret key belongs on servers only.',
  ].join('\n');
}

/** `placeholders fill`, its progress on one line of the terminal (stderr), its total on stdout. */
async function fillAllPlaceholders(config: ServiceConfig): Promise<void> {
  const stores = await openStores(config, () => '');
  const terminal = process.stderr.isTTY;
  try {
    const done = await fillPlaceholders(stores.db, stores.blobs, ({ seen, filled }) => {
      if (terminal) process.stderr.write(`\r${seen} images looked at, ${filled} placeholders made`);
      else if (seen % 100 === 0)
        process.stderr.write(`${seen} images looked at, ${filled} placeholders made\n`);
    });
    if (terminal && done.seen > 0) process.stderr.write('\n');
    console.log(
      `${done.filled} placeholders made; ${done.seen - done.filled} of ${done.seen} images without one do not decode.`,
    );
  } finally {
    await stores.close();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  // Help opens no database: asked in an empty folder, it must not create one there.
  if (args.length === 0 || args[0] === 'help' || args.includes('--help') || args.includes('-h')) {
    console.log(usage());
    return;
  }
  if (args[0] === 'keys' && args[1] === 'generate') {
    console.log(generateKeys());
    return;
  }
  const config = configFromEnv();
  // Before any store is opened: a backup only reads, a restore fills an empty data dir.
  if (args[0] === 'backup' || args[0] === 'restore') {
    const { backupCommand } = await import('./admin/backup-command.js');
    console.log(await backupCommand(args, config));
    return;
  }
  if (args[0] === 'placeholders' && args[1] === 'fill' && args.length === 2) {
    await fillAllPlaceholders(config);
    return;
  }
  const { db } = await openMetadataStore(config);
  try {
    console.log(await run(args, db));
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError || error instanceof ConfigError) {
    console.error(`${error.message}\n\n${usage()}`);
  } else {
    console.error(error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
