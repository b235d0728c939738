import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { syncPath } from './copy-verified.js';

/**
 * A directory made whole out of sight and then published at once: written as a hidden
 * sibling of `target` (same file system, so the rename at the end is one step), renamed
 * onto `target` only when complete. `target` must not exist yet, or be an empty
 * directory (replaced); anything else is refused with `refuse(reason)`.
 */
export class StagedDir {
  readonly path: string;
  readonly target: string;
  readonly #replaces: boolean;
  readonly #refuse: (reason: string) => Error;

  private constructor(
    target: string,
    path: string,
    replaces: boolean,
    refuse: (reason: string) => Error,
  ) {
    this.target = target;
    this.path = path;
    this.#replaces = replaces;
    this.#refuse = refuse;
  }

  /** Checks `target` (`notEmpty`: the refusal's words when it holds something) and makes the hidden directory. */
  static async create(
    target: string,
    label: string,
    refuse: (reason: string) => Error,
    notEmpty: string,
  ): Promise<StagedDir> {
    const found = await stat(target).catch(() => null);
    if (found && !found.isDirectory()) throw refuse(`${target} exists and is not a directory.`);
    if (found && (await readdir(target)).length > 0) throw refuse(notEmpty);
    if (!found && !(await stat(dirname(target)).catch(() => null))?.isDirectory()) {
      throw refuse(`${dirname(target)} does not exist: create it first.`);
    }
    const path = join(
      dirname(target),
      `.${basename(target)}.${label}-${randomBytes(4).toString('hex')}`,
    );
    await mkdir(path, { mode: 0o700 });
    return new StagedDir(target, path, Boolean(found), refuse);
  }

  /** Puts the finished directory (already flushed) in place of `target`. */
  async publish(): Promise<void> {
    if (this.#replaces) {
      try {
        await rmdir(this.target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        throw this.#refuse(
          `${this.target} cannot be replaced (${code}; a mount point cannot, nor a directory something was put in meanwhile): give a new directory, e.g. one inside it.`,
        );
      }
    }
    await rename(this.path, this.target);
    await syncPath(dirname(this.target));
  }
}
