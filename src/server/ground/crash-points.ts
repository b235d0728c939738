/**
 * Fault injection for the crash tests: with `FILEHOST_CRASH_AT=<name>` the process kills
 * itself with SIGKILL at that point, exactly as a power cut or an OOM kill would stop it.
 * Unset (always, outside those tests) it does nothing.
 */
export type CrashPoint =
  | 'upload:stored'
  | 'complete:renamed'
  | 'delete:marked'
  // An import's bytes stored whole, its row still pending.
  | 'import:stored'
  // An event committed with its change, before any attempt to deliver it.
  | 'event:recorded'
  // `admin backup`: every byte copied, the manifest not written yet.
  | 'backup:copied'
  // A tus upload's last byte recorded, the upload not finished yet.
  | 'tus:last-byte';

const armed = process.env.FILEHOST_CRASH_AT;

export function crashPoint(name: CrashPoint): void {
  if (armed === name) process.kill(process.pid, 'SIGKILL');
}
