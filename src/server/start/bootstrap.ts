import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { MetadataStore, Project } from '../db/metadata-store.js';
import { ConfigError, deploymentOf, type ServiceConfig } from '../ground/config.js';
import { LOOPBACK_ORIGINS } from '../ground/origins.js';
import { hashKey, type KeyKind, newId } from '../ground/secrets.js';
import { createKey, createProject, ensureKey } from './admin.js';
import { DEMO_ORIGINS } from './config-from-env.js';
import { readJsonFile, writePrivateJson } from './data-dir.js';

export interface DefaultProject {
  project: Project;
  secretKey: string;
  publishableKey: string;
}

interface SavedKeys {
  projectId: string;
  /** Keys generated at a start without `FILEHOST_*_KEY`, kept to be printed again. */
  secretKey?: string;
  publishableKey?: string;
  /** SHA-256 of the keys the environment gave last (never the keys themselves). */
  environmentKeys?: Partial<Record<KeyKind, string>>;
}

/**
 * With no configuration the service just works: on first start it creates a project and
 * its two keys, and keeps the generated keys in an owner-only file of the data directory
 * so every later start can print them again. `FILEHOST_*` settings, when set, are applied
 * to that project at each start; unset ones leave what is stored (e.g. by `npm run admin`).
 */
export async function ensureDefaultProject(
  db: MetadataStore,
  config: ServiceConfig,
): Promise<DefaultProject> {
  if (deploymentOf(config).sharedMetadata) return ensureSharedDefaultProject(db, config);
  const path = join(config.dataDir, 'default-project.json');
  const saved = await readJsonFile<SavedKeys>(path);
  let project = saved ? await db.getProject(saved.projectId) : null;
  let generated: SavedKeys;
  if (!project) {
    project = await createProject(db, newDefaultProject(config, [...LOOPBACK_ORIGINS]));
    generated = { projectId: project.id };
  } else {
    generated = saved as SavedKeys;
    // A data dir made before loopback origins were the default kept the demo's two: it gets
    // the new default, unless an operator has set origins of their own since.
    const oldDefault = isDeepStrictEqual(project.allowedOrigins, DEMO_ORIGINS);
    const origins = config.allowedOrigins ?? (oldDefault ? [...LOOPBACK_ORIGINS] : undefined);
    project = await applyConfig(db, project, config, origins);
  }

  const secretKey = await settleKey(db, project.id, 'secret', config.secretKey, generated);
  const publishableKey = await settleKey(
    db,
    project.id,
    'publishable',
    config.publishableKey,
    generated,
  );
  // Only generated keys are written down; keys given in the environment stay there.
  await writePrivateJson(path, generated);
  return { project, secretKey, publishableKey };
}

/**
 * The default project's key of one kind, as this start has it: the environment's when it
 * gives one, else the one generated earlier (or now). The start keeps one such key of each
 * kind working: when it changes (a key set in the environment over a generated one, or
 * changed there, or removed), the one it replaces is revoked, so a key that leaked cannot
 * outlive its replacement. Keys made with `npm run admin` are not the start's to revoke.
 */
async function settleKey(
  db: MetadataStore,
  projectId: string,
  kind: KeyKind,
  given: string | undefined,
  saved: SavedKeys,
): Promise<string> {
  const field = kind === 'secret' ? 'secretKey' : 'publishableKey';
  const generatedBefore = saved[field];
  const before = generatedBefore ? hashKey(generatedBefore) : saved.environmentKeys?.[kind];
  let key: string;
  if (given) {
    await ensureKey(db, projectId, given);
    delete saved[field];
    saved.environmentKeys = { ...saved.environmentKeys, [kind]: hashKey(given) };
    key = given;
  } else {
    if (saved.environmentKeys) delete saved.environmentKeys[kind];
    key = generatedBefore ?? (await createKey(db, projectId, kind)).key;
    saved[field] = key;
  }
  if (before && before !== hashKey(key)) {
    const replaced = await db.findKeyByHash(before);
    if (replaced?.project.id === projectId) await db.revokeKey(replaced.key.id, Date.now());
  }
  return key;
}

const DEFAULT_PROJECT_SETTING = 'default-project-id';

/**
 * At scale instances share nothing local, so no generated key could be shown again: the
 * keys come from the environment (the same on every instance, `configFromEnv` insists),
 * and the project's id is kept in the database, where the first instance to start records it.
 */
async function ensureSharedDefaultProject(
  db: MetadataStore,
  config: ServiceConfig,
): Promise<DefaultProject> {
  const { secretKey, publishableKey } = config;
  if (!secretKey || !publishableKey) {
    throw new ConfigError(
      secretKey ? 'FILEHOST_PUBLISHABLE_KEY' : 'FILEHOST_SECRET_KEY',
      'instances that share a database share their keys too: set FILEHOST_SECRET_KEY and FILEHOST_PUBLISHABLE_KEY, the same on every instance',
    );
  }
  const candidate = newId('prj_');
  const id = await db.initSetting(DEFAULT_PROJECT_SETTING, candidate);
  let project: Project | null;
  if (id === candidate) {
    project = await createProject(db, { id, ...newDefaultProject(config, DEMO_ORIGINS) });
  } else {
    // Another instance won the race and may not have created the row yet.
    const deadline = Date.now() + 10_000;
    project = await db.getProject(id);
    while (!project && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      project = await db.getProject(id);
    }
    if (!project) throw new Error(`The default project ${id} recorded in the database is missing.`);
    project = await applyConfig(db, project, config, config.allowedOrigins);
  }
  await ensureKey(db, project.id, secretKey);
  await ensureKey(db, project.id, publishableKey);
  return { project, secretKey, publishableKey };
}

/** The default project as a first start creates it: the settings configured, else defaults. */
function newDefaultProject(config: ServiceConfig, defaultOrigins: string[]) {
  return {
    name: 'Default project',
    plan: config.plan ?? 'free',
    allowedOrigins: config.allowedOrigins ?? defaultOrigins,
    allowedTypes: config.allowedTypes ?? null,
    storageQuota: config.storageQuota ?? null,
    maxPendingUploads: config.maxPendingUploads ?? null,
    requireUploadToken: config.requireUploadToken ?? false,
    anonymousShare: config.anonymousShare ?? null,
  };
}

/**
 * The existing default project with the settings this start's configuration sets (and
 * `origins`, when given); unset ones keep what is stored (e.g. by `npm run admin`).
 */
async function applyConfig(
  db: MetadataStore,
  project: Project,
  config: ServiceConfig,
  origins: string[] | undefined,
): Promise<Project> {
  const patch = {
    ...(config.plan ? { plan: config.plan } : {}),
    ...(origins ? { allowedOrigins: origins } : {}),
    ...(config.allowedTypes !== undefined ? { allowedTypes: config.allowedTypes } : {}),
    ...(config.storageQuota !== undefined ? { storageQuota: config.storageQuota } : {}),
    ...(config.maxPendingUploads !== undefined
      ? { maxPendingUploads: config.maxPendingUploads }
      : {}),
    ...(config.requireUploadToken !== undefined
      ? { requireUploadToken: config.requireUploadToken }
      : {}),
    ...(config.anonymousShare !== undefined ? { anonymousShare: config.anonymousShare } : {}),
  };
  if (Object.keys(patch).length === 0) return project;
  return (await db.updateProject(project.id, patch)) ?? project;
}
