import type { Plan } from '../../api/limits.js';
import type { ApiKeyRow, MetadataStore, Project } from '../db/metadata-store.js';
import { hashKey, type KeyKind, keyHint, keyKindOf, newApiKey, newId } from '../ground/secrets.js';

/**
 * Project and key management, shared by the command line (`npm run admin`), the default
 * project bootstrap and the tests.
 */
export async function createProject(
  db: MetadataStore,
  input: {
    name: string;
    plan: Plan;
    allowedOrigins: string[];
    allowedTypes?: string[] | null;
    storageQuota?: number | null;
    maxPendingUploads?: number | null;
    requireUploadToken?: boolean;
    anonymousShare?: number | null;
    id?: string;
  },
  now = Date.now(),
): Promise<Project> {
  const project: Project = {
    ...input,
    allowedTypes: input.allowedTypes ?? null,
    storageQuota: input.storageQuota ?? null,
    maxPendingUploads: input.maxPendingUploads ?? null,
    requireUploadToken: input.requireUploadToken ?? false,
    anonymousShare: input.anonymousShare ?? null,
    id: input.id ?? newId('prj_'),
    createdAt: now,
  };
  await db.createProject(project);
  return project;
}

/** Creates a key and returns it in full: the only time it is ever shown. */
export async function createKey(
  db: MetadataStore,
  projectId: string,
  kind: KeyKind,
  now = Date.now(),
): Promise<{ key: string; row: ApiKeyRow }> {
  const key = newApiKey(kind);
  const row = await registerKey(db, projectId, key, now);
  return { key, row };
}

/** Registers a key whose value was chosen elsewhere (e.g. `FILEHOST_SECRET_KEY`). */
export async function registerKey(
  db: MetadataStore,
  projectId: string,
  key: string,
  now = Date.now(),
): Promise<ApiKeyRow> {
  const kind = keyKindOf(key);
  if (!kind) throw new TypeError('A key must start with sk_live_ or pk_live_.');
  const row: ApiKeyRow = {
    id: newId('key_'),
    projectId,
    kind,
    hash: hashKey(key),
    hint: keyHint(key),
    createdAt: now,
    revokedAt: null,
  };
  await db.addKey(row);
  return row;
}

/** Makes sure `key` works for `projectId`; refuses a key that belongs to another project. */
export async function ensureKey(db: MetadataStore, projectId: string, key: string): Promise<void> {
  const check = async () => {
    const found = await db.findKeyByHash(hashKey(key));
    if (found && found.project.id !== projectId) {
      throw new Error(`That ${found.key.kind} key belongs to project ${found.project.id}.`);
    }
    return found !== null;
  };
  if (await check()) return;
  try {
    await registerKey(db, projectId, key);
  } catch (error) {
    // Another instance starting at the same moment registered it first: that is fine.
    if (!(await check())) throw error;
  }
}
