import { resolve } from 'node:path';
import { ExifTool, ExifToolTask } from 'exiftool-vendored';

/**
 * `FILEHOST_STRIP_METADATA` (decisions.md, "Safe ingest"): `gps` removes location only,
 * `all` removes EXIF, XMP and IPTC but the orientation and the colour profile, `none`
 * keeps the file as it came.
 */
export const STRIP_MODES = ['gps', 'all', 'none'] as const;
export type StripMode = (typeof STRIP_MODES)[number];

/**
 * The stored types whose metadata is edited, with the extension ExifTool is shown (it
 * reads the format from the bytes; the name only keeps its messages plain). HEIF's other
 * members (AVIF, `image/heif`) carry the same EXIF and XMP items as HEIC, so they are
 * edited too.
 */
const EDITABLE: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/heic': 'heic',
  'image/heif': 'heif',
  'image/avif': 'avif',
  'image/tiff': 'tif',
};

/** The file name extension of an editable stored type; undefined: the type is left alone. */
export function editableExtension(mime: string): string | undefined {
  return EDITABLE[mime];
}

/**
 * Location, wherever a format keeps it: EXIF's GPS directory, and any tag named like GPS
 * in every other group (XMP `exif:GPS*` and `iptcExt:Location*GPS*`, QuickTime/HEIF
 * `GPSCoordinates`, maker notes).
 */
const GPS_ARGS = ['-gps:all=', '-*gps*='];

/**
 * Everything but what the pixels need to look right: the ICC profile, Adobe's segment
 * (it says how a CMYK JPEG's channels are coded) and the orientation (copied back from the
 * original). A TIFF keeps its image directory, which `-all=` cannot remove, so its
 * descriptive tags (`CommonIFD0`: artist, camera, software, dates …) are named.
 */
const ALL_ARGS = [
  '-all=',
  '--icc_profile:all',
  '--adobe:all',
  '-CommonIFD0=',
  ...GPS_ARGS,
  '-tagsFromFile',
  '@',
  '-exif:Orientation',
];

/**
 * What remains when a file's metadata is too damaged for the edits above: every block
 * ExifTool can take out, as a whole, but the colour profile. A block that cannot be read
 * cannot be edited, but it can be dropped.
 */
const FALLBACK_ARGS = ['-all=', '--icc_profile:all', '--adobe:all', '-CommonIFD0='];

/**
 * How long ExifTool may take over one file before it is stopped: it copies the file once
 * (a 5 GiB file at a slow disk's 50 MB/s is under two minutes).
 */
export const STRIP_TASK_TIMEOUT_MS = 180_000;

/** `exiftool -o <out> <args> <in>`: whether `out` holds an edited copy. */
class EditTask extends ExifToolTask<boolean> {
  static for(input: string, output: string, args: string[]): EditTask {
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
 * Removes metadata from image files without touching their pixels: ExifTool (through
 * `exiftool-vendored`, a few long-lived processes) rewrites only the metadata blocks of a
 * file and copies the image data as it is, unlike a decode and re-encode.
 */
export class MetadataStripper {
  readonly #exiftool: ExifTool;

  /**
   * `taskTimeoutMs`: how long one file may take (ExifTool copies the whole file, so allow
   * for the largest); past it the process is killed and the edit counts as failed.
   */
  constructor(options: { taskTimeoutMs: number }) {
    this.#exiftool = new ExifTool({
      taskTimeoutMillis: options.taskTimeoutMs,
      // A task that failed failed for its file; trying again gives the same answer.
      taskRetries: 0,
    });
  }

  /**
   * Writes `input` without what `mode` removes to `output`: `edited` when that copy
   * differs from the input (`output` is then the file to keep), `unchanged` when there was
   * nothing to remove, `failed` when ExifTool could not read the file's metadata at all
   * (`reason` says why; the caller keeps the file as it came, which no reader can make
   * more of than ExifTool).
   */
  async strip(
    input: string,
    output: string,
    mode: Exclude<StripMode, 'none'>,
  ): Promise<{ outcome: 'edited' | 'unchanged' } | { outcome: 'failed'; reason: string }> {
    const attempts = [mode === 'all' ? ALL_ARGS : GPS_ARGS, FALLBACK_ARGS];
    let reason = '';
    for (const args of attempts) {
      try {
        const edited = await this.#exiftool.enqueueTask(
          () => EditTask.for(input, output, args),
          false,
        );
        return { outcome: edited ? 'edited' : 'unchanged' };
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
        // A timed-out file would time out again: do not wait twice.
        if (/timeout|timed out/i.test(reason)) break;
      }
    }
    return { outcome: 'failed', reason };
  }

  /** Ends the ExifTool processes. */
  async close(): Promise<void> {
    await this.#exiftool.end();
  }
}
