/** The scripts of this repository that start the service or its admin command. */
const REPOSITORY_SCRIPTS = new Set(['server', 'admin', 'start']);

/**
 * How the user starts a command, as its help should tell them: in this repository
 * `npm run server` / `npm run admin --` (npm names the script it runs in
 * `npm_lifecycle_event`), from the package `npx @filehost/server` / `npx @filehost/server
 * admin` (npx, the package's bin run directly, or anything else).
 */
export function commandName(
  command: 'server' | 'admin',
  env: NodeJS.ProcessEnv = process.env,
): string {
  const inRepository = REPOSITORY_SCRIPTS.has(env.npm_lifecycle_event ?? '');
  if (command === 'admin') return inRepository ? 'npm run admin --' : 'npx @filehost/server admin';
  return inRepository ? 'npm run server' : 'npx @filehost/server';
}
