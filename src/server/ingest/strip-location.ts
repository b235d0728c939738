import { rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ExifTool } from 'exiftool-vendored';
import type { StripMode } from '../ground/config.js';
import { EditTask } from './exiftool-tasks.js';
import { findLocation, type LocationTrace } from './location-check.js';
import { copyWithoutChunks, holdsLocation, isPng, pngTextChunks } from './png-text.js';

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
 * Location, wherever a format keeps it in the main image: EXIF's GPS directory, and any
 * tag named like GPS, latitude or longitude in every other group (XMP `exif:GPS*` and
 * `iptcExt:Location*GPS*`, QuickTime/HEIF `GPSCoordinates`, maker notes).
 */
const GPS_ARGS = ['-gps:all=', '-*gps*=', '-*latitude*=', '-*longitude*='];

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
 * Images after the main one (MPF pictures, phone makers' trailers): ExifTool cannot edit
 * their metadata, only drop them with the MPF segment that points at them (its MPF notes
 * say to drop both together). The main image stays byte for byte.
 */
const TRAILER_ARGS = ['-mpf:all=', '-trailer:all='];

/** A thumbnail needs no metadata of its own: all of it goes, its pixels stay. */
const THUMBNAIL_ARGS = ['-all='];

/**
 * How long ExifTool may take over one file before it is stopped: it copies the file once
 * (a 5 GiB file at a slow disk's 50 MB/s is under two minutes).
 */
export const STRIP_TASK_TIMEOUT_MS = 180_000;

/**
 * The ExifTool script to run: the service's own `exiftool-vendored.pl` (13.59.2 or later),
 * whose ExifTool exits when its input from the service ends. The operating system ends that
 * input when the service dies, however it dies (`kill -9`, the OOM killer, a crash), so no
 * ExifTool is left running without it. `exiftool-vendored` 35 (the last for Node 20) pins
 * 13.59.0, whose ExifTool reads the closed input again every 10 ms, forever; this
 * repository's `overrides` give it the newer one, but a consumer of the service's package
 * ignores them, so the service names the script it depends on. Undefined on Windows, where
 * `exiftool-vendored` runs its `exiftool-vendored.exe` instead.
 */
function exiftoolScript(): string | undefined {
  if (process.platform === 'win32') return undefined;
  // Called `require`, so that the service package's build (build-server-package.ts) sees
  // the import and lists `exiftool-vendored.pl` among the package's dependencies.
  const require = createRequire(import.meta.url);
  return require('exiftool-vendored.pl') as string;
}

/** What `strip` made of a file. */
export type StripResult =
  | { outcome: 'edited' | 'unchanged' }
  /** Location could not be removed, or not shown to be gone: the file must not be kept. */
  | { outcome: 'refused'; reason: string };

/**
 * Removes location, or all metadata, from image files without touching their pixels:
 * ExifTool (through `exiftool-vendored`, a few long-lived processes) rewrites only the
 * metadata blocks of a file and copies the image data as it is, unlike a decode and
 * re-encode. What ExifTool does not edit is handled beside it: PNG text chunks that give a
 * position are dropped, a thumbnail with a position of its own is replaced by the same
 * thumbnail without metadata, and images appended after the main one that carry a position
 * are dropped. The result is then read back by two readers (`findLocation`): a position
 * left anywhere refuses the file.
 */
export class MetadataStripper {
  readonly #exiftool: ExifTool;

  /**
   * `taskTimeoutMs`: how long one file may take (ExifTool copies the whole file, so allow
   * for the largest); past it the process is killed and the edit counts as failed.
   */
  constructor(options: { taskTimeoutMs: number }) {
    const script = exiftoolScript();
    this.#exiftool = new ExifTool({
      ...(script ? { exiftoolPath: script } : {}),
      taskTimeoutMillis: options.taskTimeoutMs,
      // A task that failed failed for its file; trying again gives the same answer.
      taskRetries: 0,
    });
  }

  /**
   * Writes `input` without what `mode` removes to `output`: `edited` when that copy
   * differs from the input (`output` is then the file to keep), `unchanged` when there was
   * nothing to remove, `refused` when ExifTool cannot rewrite the file's metadata or a
   * position is still found afterwards (`reason` says where). Work files go beside
   * `output`, in a directory the caller owns and removes.
   */
  async strip(
    input: string,
    output: string,
    mode: Exclude<StripMode, 'none'>,
  ): Promise<StripResult> {
    const work = new WorkFiles(output);
    const edited = await this.#editMain(input, work.next(), mode);
    if ('reason' in edited) return { outcome: 'refused', reason: edited.reason };
    let current = edited.file ?? input;
    current = (await this.#dropPngTextLocation(current, work)) ?? current;
    let traces = await findLocation(this.#exiftool, current, work.dir);
    if (traces.some((trace) => trace.where === 'embedded')) {
      current = (await this.#cleanThumbnail(current, work)) ?? current;
      traces = await findLocation(this.#exiftool, current, work.dir);
    }
    if (traces.some((trace) => trace.where === 'embedded')) {
      current = (await this.#edit(current, work.next(), TRAILER_ARGS)) ? work.last() : current;
      traces = await findLocation(this.#exiftool, current, work.dir);
    }
    if (traces.length > 0) return { outcome: 'refused', reason: describe(traces) };
    if (current === input) return { outcome: 'unchanged' };
    await rename(current, output);
    return { outcome: 'edited' };
  }

  /** Ends the ExifTool processes. */
  async close(): Promise<void> {
    await this.#exiftool.end();
  }

  /**
   * The main image's edit as `mode` says; when ExifTool cannot make it (a damaged block),
   * every block it can drop is dropped instead. `file`: the edited copy, or undefined when
   * there was nothing to remove; `reason`: ExifTool could do neither.
   */
  async #editMain(
    input: string,
    output: string,
    mode: Exclude<StripMode, 'none'>,
  ): Promise<{ file?: string } | { reason: string }> {
    let reason = '';
    for (const args of [mode === 'all' ? ALL_ARGS : GPS_ARGS, FALLBACK_ARGS]) {
      try {
        return (await this.#edit(input, output, args)) ? { file: output } : {};
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
        // A timed-out file would time out again: do not wait twice.
        if (/timeout|timed out/i.test(reason)) break;
      }
    }
    return { reason: `ExifTool cannot rewrite its metadata: ${reason}` };
  }

  /** `exiftool -o output args input`: whether `output` was written (false: nothing to do). */
  #edit(input: string, output: string, args: readonly string[]): Promise<boolean> {
    return this.#exiftool.enqueueTask(() => EditTask.for(input, output, args), false);
  }

  /** A PNG without its text chunks that give a position; undefined when it has none. */
  async #dropPngTextLocation(file: string, work: WorkFiles): Promise<string | undefined> {
    if (!(await isPng(file))) return undefined;
    const drop = (await pngTextChunks(file)).filter(holdsLocation);
    if (drop.length === 0) return undefined;
    const output = work.next();
    await copyWithoutChunks(file, output, drop);
    return output;
  }

  /**
   * The file with its EXIF thumbnail replaced by the same JPEG without any metadata, when
   * that thumbnail has a position of its own; undefined when it has none, or no thumbnail.
   */
  async #cleanThumbnail(file: string, work: WorkFiles): Promise<string | undefined> {
    const thumbnail = await this.#exiftool
      .extractBinaryTagToBuffer('ThumbnailImage', file)
      .catch(() => undefined);
    if (!thumbnail || thumbnail.length === 0) return undefined;
    const original = work.next();
    await writeFile(original, thumbnail);
    if ((await findLocation(this.#exiftool, original, work.dir)).length === 0) return undefined;
    const bare = work.next();
    if (!(await this.#edit(original, bare, THUMBNAIL_ARGS))) return undefined;
    const output = work.next();
    return (await this.#edit(file, output, [`-ThumbnailImage<=${bare}`])) ? output : undefined;
  }
}

/** Numbered files in the output's directory, one per step, so no step overwrites another. */
class WorkFiles {
  readonly dir: string;
  readonly #extension: string;
  #count = 0;

  constructor(output: string) {
    this.dir = dirname(output);
    this.#extension = output.slice(output.lastIndexOf('.'));
  }

  next(): string {
    this.#count += 1;
    return this.last();
  }

  last(): string {
    return join(this.dir, `step-${this.#count}${this.#extension}`);
  }
}

function describe(traces: readonly LocationTrace[]): string {
  const listed = traces.slice(0, 5).map((trace) => trace.what);
  const more = traces.length > listed.length ? ` and ${traces.length - listed.length} more` : '';
  return `a position is still there: ${listed.join(', ')}${more}`;
}
