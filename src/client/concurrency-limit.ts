/** Runs at most `limit` of the tasks given to it at once, the others in the order given. */
export type ConcurrencyLimit = <T>(task: () => Promise<T>) => Promise<T>;

export function concurrencyLimit(limit: number): ConcurrencyLimit {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    // A finished task hands its place to the next waiting one, so none is taken twice.
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * A place among a limit's, held from when it is granted until `release` is called: for
 * work that spans several callbacks rather than one task.
 */
export function holdPlace(limit: ConcurrencyLimit): Promise<() => void> {
  return new Promise(
    (granted) => void limit(() => new Promise<void>((release) => granted(release))),
  );
}
