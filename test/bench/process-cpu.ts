import { readdir, readFile } from 'node:fs/promises';

/**
 * CPU time (user + system, every thread) of processes, read from Linux's `/proc`: what a
 * bench's service and browser spent on one run, which a loaded machine inflates far less
 * than the run's wall time. Clock ticks are 1/100 s here (`getconf CLK_TCK`), so a sample
 * is good to 10 ms per process.
 */
const TICK_MS = 10;

interface ProcessStat {
  pid: number;
  parent: number;
  cpuMs: number;
}

async function statOf(pid: number): Promise<ProcessStat | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // After the command's name (in parentheses, which may hold spaces): state, ppid, ...;
    // utime and stime are fields 14 and 15 of stat(5).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      pid,
      parent: Number(fields[1]),
      cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
    };
  } catch {
    // Gone meanwhile.
    return null;
  }
}

/**
 * The CPU time so far of each tree rooted at one of `roots` (the process and everything it
 * started), ms; a process under two roots counts for the inner one only. Null on a system
 * without `/proc`.
 */
export async function treeCpuMs(roots: number[]): Promise<number[] | null> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return null;
  }
  const stats = (
    await Promise.all(
      names.filter((name) => /^\d+$/.test(name)).map((name) => statOf(Number(name))),
    )
  ).filter((stat): stat is ProcessStat => stat !== null);
  const parentOf = new Map(stats.map((stat) => [stat.pid, stat.parent]));
  const totals = roots.map(() => 0);
  for (const stat of stats) {
    // The nearest root above (or at) this process.
    for (let pid: number | undefined = stat.pid; pid && pid > 1; pid = parentOf.get(pid)) {
      const root = roots.indexOf(pid);
      if (root >= 0) {
        totals[root] = (totals[root] ?? 0) + stat.cpuMs;
        break;
      }
    }
  }
  return totals;
}
