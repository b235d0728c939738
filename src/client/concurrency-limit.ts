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
 * At most `limit` places held at once, each from when it is granted until its release
 * is called (once): for work that spans several callbacks rather than one task. The others
 * wait in the order they asked.
 */
export function places(limit: number): () => Promise<() => void> {
  let free = limit;
  const waiting: ((release: () => void) => void)[] = [];
  // A place given back goes to the next one waiting, so none is taken twice.
  const release = () => {
    const next = waiting.shift();
    if (next) next(release);
    else free++;
  };
  return () =>
    new Promise((granted) => {
      if (free > 0) {
        free--;
        granted(release);
      } else waiting.push(granted);
    });
}
