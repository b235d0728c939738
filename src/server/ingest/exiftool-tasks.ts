import { resolve } from 'node:path';
import { ExifToolTask } from 'exiftool-vendored';

/** `exiftool -o <out> <args> <in>`: whether `out` holds an edited copy. */
export class EditTask extends ExifToolTask<boolean> {
  static for(input: string, output: string, args: readonly string[]): EditTask {
    // `-m`: minor errors (a damaged maker note, a non-standard IPTC block) are not fatal.
    return new EditTask(['-m', '-o', resolve(output), ...args, resolve(input)]);
  }

  protected parse(stdout: string, error?: Error): boolean {
    if (error) throw error;
    // "1 image files created": edited; "1 image files copied": there was nothing to remove.
    if (/\b1 image files created\b/.test(stdout)) return true;
    if (/\b1 image files copied\b/.test(stdout)) return false;
    throw new Error(`ExifTool wrote nothing: ${stdout.trim().slice(0, 200)}`);
  }
}

/**
 * Every tag of each file, as `Group:…:Name` → value, in the files' order: all groups and
 * duplicates (`-a`), embedded documents (`-ee3`: MPF pictures, streams) with their document
 * as the first group (`-G3:1`: `Doc1:GPS:GPSLatitude`), values as numbers (`-n`).
 */
export class ReadTagsTask extends ExifToolTask<Record<string, unknown>[]> {
  readonly #files: string[];

  static for(files: readonly string[]): ReadTagsTask {
    return new ReadTagsTask(files.map((file) => resolve(file)));
  }

  private constructor(files: string[]) {
    super(['-j', '-a', '-G3:1', '-ee3', '-n', '-api', 'LargeFileSupport=1', ...files]);
    this.#files = files;
  }

  protected parse(stdout: string, error?: Error): Record<string, unknown>[] {
    // An embedded "JPEG" that is only bytes by chance is an error of its file alone; the
    // answer still has an object for each file, which is what counts.
    let parsed: unknown;
    try {
      parsed = JSON.parse(stdout);
    } catch {
      throw error ?? new Error(`ExifTool answered no tags: ${stdout.trim().slice(0, 200)}`);
    }
    const bySource = new Map<unknown, Record<string, unknown>>();
    if (Array.isArray(parsed)) {
      for (const tags of parsed as Record<string, unknown>[]) bySource.set(tags.SourceFile, tags);
    }
    return this.#files.map((file) => {
      const tags = bySource.get(file);
      if (!tags) throw error ?? new Error(`ExifTool answered nothing for ${file}`);
      return tags;
    });
  }
}
