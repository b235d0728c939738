import { commandName } from '../ground/command-name.js';

/**
 * The service command's help (`npx @filehost/server --help`, `npm run server -- --help`),
 * in the words the user started it with. It takes no arguments of its own: everything is
 * a `FILEHOST_*` variable, so a stray argument is refused rather than silently ignored.
 */
export function serviceUsage(): string {
  const command = commandName('server');
  const admin = commandName('admin');
  return `Starts the filehost service: the API and its CDN, with a default project whose keys it
prints. Stop it with Ctrl+C.

Usage: ${command} [--help]

Configured by FILEHOST_* environment variables (and a .env file in the working folder):
  FILEHOST_API_PORT         the API's port (default 8787)
  FILEHOST_CDN_PORT         the CDN's port (default 8788)
  FILEHOST_DATA_DIR         the SQLite database and the files (default ./.filehost)
  FILEHOST_ALLOWED_ORIGINS  the pages that may upload with the publishable key
                            (default: any loopback origin, http://localhost:*)
  FILEHOST_DATABASE_URL     postgres://…: PostgreSQL instead of SQLite (with FILEHOST_S3_*
                            for S3 instead of the local disk: many instances)
Every variable: docs/service.md in the filehost repository.

Projects, keys and webhooks: ${admin} --help`;
}

/**
 * What the command line asks for: `help` (print it, exit 0), `start`, or a usage error
 * (print it with the help, exit 2).
 */
export function serviceCommand(args: readonly string[]): 'help' | 'start' | { error: string } {
  if (args.includes('--help') || args.includes('-h') || args[0] === 'help') return 'help';
  if (args.length === 0) return 'start';
  return {
    error: `Unknown argument: ${args[0]}. The service takes its settings from FILEHOST_* variables.`,
  };
}
