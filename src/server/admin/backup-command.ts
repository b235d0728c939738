import { deploymentOf, type ServiceConfig } from '../ground/config.js';
import { crashPoint } from '../ground/crash-points.js';
import { type BackupProgress, backupDataDir } from './backup.js';
import { countOf, formatBytes, formatCount, ProgressLine } from './progress-line.js';
import { restoreDataDir } from './restore.js';

/** `admin backup DIR` and `admin restore DIR`; answers what stdout says at the end. */
export async function backupCommand(
  args: readonly string[],
  config: ServiceConfig,
): Promise<string> {
  const [command, dir, ...rest] = args;
  if (!dir || rest.length > 0) throw new Error(`${command} takes one directory: ${command} DIR`);
  const deployment = deploymentOf(config);
  if (deployment.sharedMetadata || config.s3) {
    throw new Error(
      `admin ${command} is for the embedded deployment (SQLite and the local disk in FILEHOST_DATA_DIR). At scale, back up PostgreSQL and the bucket: see docs/running-at-scale.md.`,
    );
  }
  const line = new ProgressLine();
  // Ctrl-C stops the copy and removes what it wrote, rather than leaving half of it.
  const stop = new AbortController();
  const interrupted = () => stop.abort(new Error(`admin ${command} stopped: nothing was kept.`));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    return command === 'backup'
      ? await backup(config.dataDir, dir, line, stop.signal)
      : await restore(dir, config.dataDir, line, stop.signal);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}

async function backup(
  dataDir: string,
  target: string,
  line: ProgressLine,
  signal: AbortSignal,
): Promise<string> {
  const began = performance.now();
  let lastStep: BackupProgress['step'] | null = null;
  const manifest = await backupDataDir({
    dataDir,
    target,
    signal,
    onProgress: (progress) => {
      const text = describe(progress);
      // Each step's last state stays on screen; the next starts on a line of its own.
      if (lastStep !== null && lastStep !== progress.step) line.finish();
      lastStep = progress.step;
      const ended =
        progress.step === 'database'
          ? progress.copiedPages === progress.totalPages
          : progress.done === progress.total;
      line.update(text, ended);
    },
    beforeManifest: () => crashPoint('backup:copied'),
  });
  if (lastStep) line.finish();
  const { counts } = manifest;
  const seconds = ((performance.now() - began) / 1000).toFixed(1);
  const lines = [
    `Backed up ${dataDir} to ${target} in ${seconds} s: the records as of ${manifest.copiedAt},`,
    `${countOf(counts.files, 'file')} (${formatBytes(counts.bytes)}), ${countOf(counts.projects, 'project')}, ${countOf(counts.apiKeys, 'key')}, ${countOf(counts.webhooks, 'webhook')}, ${countOf(counts.uploadTokens, 'upload token')}.`,
  ];
  if (manifest.deletedDuringBackup.length > 0) {
    lines.push(
      `${manifest.deletedDuringBackup.length} files deleted while the backup ran are recorded as deleted.`,
    );
  }
  if (manifest.damagedInSource.length > 0) {
    line.note(
      `Warning: the data dir lacks the bytes of ${manifest.damagedInSource.length} ready files, or holds them at another size than recorded (kept as they are; listed in the manifest's damagedInSource): ${manifest.damagedInSource.slice(0, 5).join(', ')}${manifest.damagedInSource.length > 5 ? ', …' : ''}`,
    );
  }
  return lines.join('\n');
}

function describe(progress: BackupProgress): string {
  if (progress.step === 'database') {
    const percent =
      progress.totalPages === 0
        ? 100
        : Math.floor((progress.copiedPages / progress.totalPages) * 100);
    return `Database: ${percent}% (${formatCount(progress.copiedPages)} of ${formatCount(progress.totalPages)} pages)`;
  }
  const which =
    progress.step === 'files-known'
      ? 'Files ready before the database copy'
      : 'Files made ready during it';
  return `${which}: ${formatCount(progress.done)} of ${formatCount(progress.total)}, ${formatBytes(progress.bytes)}`;
}

async function restore(
  backupDir: string,
  dataDir: string,
  line: ProgressLine,
  signal: AbortSignal,
): Promise<string> {
  const began = performance.now();
  const manifest = await restoreDataDir({
    backup: backupDir,
    dataDir,
    signal,
    onProgress: ({ done, total, bytes, totalBytes }) =>
      line.update(
        `Restoring: ${formatCount(done)} of ${countOf(total, 'file')}, ${formatBytes(bytes)} of ${formatBytes(totalBytes)}`,
        done === total,
      ),
  });
  line.finish();
  const seconds = ((performance.now() - began) / 1000).toFixed(1);
  return [
    `Restored ${backupDir} into ${dataDir} in ${seconds} s (every byte checked): the records as of ${manifest.copiedAt},`,
    `${countOf(manifest.counts.files, 'file')} (${formatBytes(manifest.counts.bytes)}), ${countOf(manifest.counts.projects, 'project')}, ${countOf(manifest.counts.apiKeys, 'key')}, ${countOf(manifest.counts.webhooks, 'webhook')}.`,
    'Start the service on it (FILEHOST_DATA_DIR as now).',
  ].join('\n');
}
