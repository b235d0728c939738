import { readdirSync, readFileSync } from 'node:fs';

/**
 * Processes as Linux's `/proc` tells them: read straight from the files, so that listing a
 * tree starts no `ps` process (which a machine may lack, and whose own start a CPU sample
 * would count). Clock ticks are 1/100 s here (`getconf CLK_TCK`).
 */
const TICK_MS = 10;

/** A process under way. */
export interface ProcessStat {
  pid: number;
  parent: number;
  /** Whole seconds since it started (`ps -o etimes`). */
  seconds: number;
  /** CPU time (user + system, every thread) it has used so far, ms: good to 10 ms. */
  cpuMs: number;
}

/** A process and its command line. */
export interface RunningProcess extends ProcessStat {
  /** Its command line, the words joined by spaces (`ps -o args`). */
  command: string;
}

/** The fields of `/proc/<pid>/stat` after the command's name (state, ppid, ...); null when gone. */
function statFields(pid: number | string): string[] | null {
  const stat = readText(`/proc/${pid}/stat`);
  // The name is in parentheses and may hold spaces and parentheses of its own.
  return stat === null ? null : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // Gone meanwhile.
    return null;
  }
}

/** Every process on the machine now (none on a system without `/proc`). */
export function processes(): ProcessStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const uptime = Number(readText('/proc/uptime')?.split(' ')[0] ?? 0);
  return names.flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    const fields = statFields(name);
    if (fields === null) return [];
    // utime, stime and starttime are fields 14, 15 and 22 of proc(5).
    const started = (Number(fields[19]) * TICK_MS) / 1000;
    return [
      {
        pid: Number(name),
        parent: Number(fields[1]),
        seconds: Math.max(0, Math.floor(uptime - started)),
        cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
      },
    ];
  });
}

/** A process's command line; `[name]` for one without (a zombie), as `ps` prints it. */
function commandOf(pid: number): string {
  const line = readText(`/proc/${pid}/cmdline`)?.replace(/\0+$/, '').replaceAll('\0', ' ');
  if (line) return line;
  const stat = readText(`/proc/${pid}/stat`) ?? '';
  return `[${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}]`;
}

/** The processes `root` started, and theirs, from a listing (`all`), in no order. */
export function treeOf(root: number, all: ProcessStat[] = processes()): ProcessStat[] {
  const found: ProcessStat[] = [];
  let parents = new Set([root]);
  while (parents.size > 0) {
    const children = all.filter((each) => parents.has(each.parent));
    found.push(...children);
    parents = new Set(children.map((each) => each.pid));
  }
  return found;
}

/**
 * The processes `root` started, and theirs, oldest first, with their command lines: what a
 * stage that ran past its time was still doing (a test file's process names the file in its
 * command line).
 */
export function descendants(root: number): RunningProcess[] {
  return treeOf(root)
    .sort((a, b) => b.seconds - a.seconds)
    .map((each) => ({ ...each, command: commandOf(each.pid) }));
}

/**
 * Whether `pid` is still a process that runs: one that has ended but was not yet reaped by
 * its parent (a zombie, state `Z`; an orphan's new parent may be slow to reap, or never do
 * it in a container whose first process does not) counts as ended.
 */
export function isRunning(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}
