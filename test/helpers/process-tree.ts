import { execFileSync } from 'node:child_process';

/** A process under way, as `ps` tells it. */
export interface RunningProcess {
  pid: number;
  parent: number;
  /** Seconds since it started. */
  seconds: number;
  command: string;
}

/** Every process on the machine now (none where `ps` cannot run). */
function processes(): RunningProcess[] {
  let listing: string;
  try {
    listing = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,etimes=,args='], {
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch {
    return [];
  }
  return listing.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!match) return [];
    const [, pid, parent, seconds, command] = match;
    return [
      {
        pid: Number(pid),
        parent: Number(parent),
        seconds: Number(seconds),
        command: command ?? '',
      },
    ];
  });
}

/**
 * The processes `root` started, and theirs, oldest first: what a stage that ran past its
 * time was still doing (a test file's process names the file in its command line).
 */
export function descendants(root: number): RunningProcess[] {
  const all = processes();
  const found: RunningProcess[] = [];
  let parents = new Set([root]);
  while (parents.size > 0) {
    const children = all.filter((each) => parents.has(each.parent));
    found.push(...children);
    parents = new Set(children.map((each) => each.pid));
  }
  return found.sort((a, b) => b.seconds - a.seconds);
}

/**
 * Whether `pid` is still a process that runs: one that has ended but was not yet reaped by
 * its parent (a zombie, state `Z`; an orphan's new parent may be slow to reap, or never do
 * it in a container whose first process does not) counts as ended.
 */
export function isRunning(pid: number): boolean {
  try {
    const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
    return state.trim() !== '' && !state.trim().startsWith('Z');
  } catch {
    // `ps -p` exits 1 when there is no such process.
    return false;
  }
}
