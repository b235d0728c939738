import { join } from 'node:path';
import { createKey, createProject, ensureKey } from './admin.js';
import { DEMO_ORIGINS, type ServiceConfig } from './config.js';
import { readJsonFile, writePrivateJson } from './data-dir.js';
import type { MetadataStore, Project } from './db/metadata-store.js';

export interface DefaultProject {
  project: Project;
  secretKey: string;
  publishableKey: string;
}

interface SavedKeys {
  projectId: string;
  secretKey?: string;
  publishableKey?: string;
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
  const path = join(config.dataDir, 'default-project.json');
  const saved = await readJsonFile<SavedKeys>(path);
  let project = saved ? await db.getProject(saved.projectId) : null;
  let generated: SavedKeys;
  if (!project) {
    project = await createProject(db, {
      name: 'Default project',
      plan: config.plan ?? 'free',
      allowedOrigins: config.allowedOrigins ?? DEMO_ORIGINS,
    });
    generated = { projectId: project.id };
  } else {
    generated = saved as SavedKeys;
    const patch = {
      ...(config.plan ? { plan: config.plan } : {}),
      ...(config.allowedOrigins ? { allowedOrigins: config.allowedOrigins } : {}),
    };
    if (Object.keys(patch).length > 0)
      project = (await db.updateProject(project.id, patch)) ?? project;
  }

  if (config.secretKey) await ensureKey(db, project.id, config.secretKey);
  else generated.secretKey ??= (await createKey(db, project.id, 'secret')).key;
  if (config.publishableKey) await ensureKey(db, project.id, config.publishableKey);
  else generated.publishableKey ??= (await createKey(db, project.id, 'publishable')).key;
  // Only generated keys are written down; keys given in the environment stay there.
  await writePrivateJson(path, generated);

  return {
    project,
    secretKey: config.secretKey ?? (generated.secretKey as string),
    publishableKey: config.publishableKey ?? (generated.publishableKey as string),
  };
}
