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
 * wait in the order they asked; one whose `signal` aborts stops waiting (rejects with its
 * reason) and leaves the line, so a file removed while it waits for a place never takes one.
 */
export function places(limit: number): (signal?: AbortSignal) => Promise<() => void> {
  let free = limit;
  const waiting: ((release: () => void) => void)[] = [];
  // A place given back goes to the next one waiting, so none is taken twice.
  const release = () => {
    const next = waiting.shift();
    if (next) next(release);
    else free++;
  };
  return (signal) =>
    new Promise((granted, refused) => {
      if (signal?.aborted) refused(signal.reason);
      else if (free > 0) {
        free--;
        granted(release);
      } else {
        const leave = () => {
          waiting.splice(waiting.indexOf(wait), 1);
          refused(signal?.reason);
        };
        const wait = (place: () => void) => {
          signal?.removeEventListener('abort', leave);
          granted(place);
        };
        signal?.addEventListener('abort', leave, { once: true });
        waiting.push(wait);
      }
    });
}
