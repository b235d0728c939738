import { open, rm, stat } from 'node:fs/promises';

const CHUNK = 256 * 1024;

/**
 * A few megabytes of the data directory's disk held back, so that the one write that frees
 * space, marking a file deleted, can still commit when the disk is 100% full: it gives the
 * space back and tries again. It is made again once there is room (at each sweep).
 */
export class DiskReserve {
  readonly #path: string;
  readonly #bytes: number;

  constructor(path: string, bytes = 4 * 1024 * 1024) {
    this.#path = path;
    this.#bytes = bytes;
  }

  /** Makes the reserve if it is missing; with no room for it, leaves none (it tries again). */
  async ensure(): Promise<void> {
    const found = await stat(this.#path).catch(() => null);
    if (found?.size === this.#bytes) return;
    const handle = await open(this.#path, 'w', 0o600);
    try {
      // Written, not only sized: a sparse file would hold back nothing.
      const zeros = Buffer.alloc(CHUNK);
      for (let at = 0; at < this.#bytes; at += CHUNK) {
        await handle.write(zeros, 0, Math.min(CHUNK, this.#bytes - at), at);
      }
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(this.#path, { force: true });
      if (isDiskFull(error)) return;
      throw error;
    }
    await handle.close();
  }

  /** Gives the space back; answers whether there was any to give. */
  async release(): Promise<boolean> {
    const found = await stat(this.#path).catch(() => null);
    await rm(this.#path, { force: true });
    return found !== null;
  }
}

/** No room on the disk: the operating system's ENOSPC/EDQUOT, or SQLite's own word for it. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL';
}
