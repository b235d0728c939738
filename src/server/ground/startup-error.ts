import { userInfo } from 'node:os';

/**
 * Why the service cannot start, already worded for the operator: the cause and the setting
 * (or action) that fixes it, in one line. `describeStartError` prints the message alone.
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/**
 * A port another program holds, worded for the operator: `remedy` names the setting that
 * moves the service off it.
 */
export function portInUseMessage(
  port: number | undefined,
  address: string | undefined,
  remedy: string,
): string {
  return `Port ${port} on ${address} is already in use (another filehost, or another program). Stop it, or ${remedy}.`;
}

/**
 * A file-system or SQLite failure on the data directory, as a StartupError when its cause
 * is one an operator can fix (read-only mount, permissions, a full disk, a damaged
 * database), or the error itself when it is not.
 */
export function dataDirError(dir: string, error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code;
  const elsewhere = 'or set FILEHOST_DATA_DIR to another directory';
  const cause = { cause: error };
  switch (code) {
    case 'EROFS':
    case 'SQLITE_READONLY':
      return new StartupError(
        `The data directory ${dir} is on a read-only file system. Mount it read-write, ${elsewhere}.`,
        cause,
      );
    case 'EACCES':
    case 'EPERM':
    case 'SQLITE_CANTOPEN':
      return new StartupError(
        `The data directory ${dir} is not writable by this user (${userInfo().username}). Give this user write permission on it, ${elsewhere}.`,
        cause,
      );
    case 'ENOSPC':
    case 'EDQUOT':
    case 'SQLITE_FULL':
      return new StartupError(
        `The disk that holds the data directory ${dir} is full. Free some space on it, ${elsewhere}.`,
        cause,
      );
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return new StartupError(
        `The database in ${dir} (filehost.db) is damaged or not a SQLite database. Restore it from a backup or move it away, ${elsewhere}.`,
        cause,
      );
    default:
      if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) {
        return new StartupError(
          `The database in ${dir} (filehost.db) is locked by another process. Stop that process, ${elsewhere}.`,
          cause,
        );
      }
      return error instanceof Error ? error : new Error(String(error));
  }
}
