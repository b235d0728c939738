import { processes, treeOf } from '../helpers/process-tree.js';

/**
 * The CPU time so far (user + system, every thread) of each tree rooted at one of `roots`
 * (the process and everything it started), ms: what a bench's service and browser spent on
 * one run, which a loaded machine inflates far less than the run's wall time. A process
 * under two roots counts for the inner one only. Null on a system without `/proc`.
 */
export function treeCpuMs(roots: number[]): number[] | null {
  const all = processes();
  if (all.length === 0) return null;
  const cpuOf = new Map(all.map((each) => [each.pid, each.cpuMs]));
  const trees = roots.map((root) => new Set([root, ...treeOf(root, all).map((each) => each.pid)]));
  return trees.map((tree, at) => {
    const inner = trees.filter((_other, o) => roots[o] !== roots[at] && tree.has(roots[o] ?? 0));
    let total = 0;
    for (const pid of tree) {
      if (!inner.some((other) => other.has(pid))) total += cpuOf.get(pid) ?? 0;
    }
    return total;
  });
}
