/**
 * Stands in for `lodash/throttle` in the script-tag bundle only (see vite.config.ts): Uppy
 * core calls it once, as `throttle(fn, 500, { leading: true, trailing: true })`, and
 * lodash's version with its helpers costs about 1 KiB gzipped there. This is lodash's own
 * algorithm (a debounce whose longest wait is the wait) cut down to that call: it runs at
 * once, then at most once per wait with the latest arguments, and a call after a quiet wait
 * runs at once again. npm users get lodash itself.
 */
export default function throttle<A extends unknown[]>(
  run: (...args: A) => void,
  waitMs: number,
): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastArgs: A | undefined;
  let lastCall: number | undefined;
  let lastRun = 0;

  const due = (time: number): boolean =>
    lastCall === undefined ||
    time - lastCall >= waitMs ||
    time - lastCall < 0 ||
    time - lastRun >= waitMs;

  const invoke = (time: number): void => {
    const args = lastArgs as A;
    lastArgs = undefined;
    lastRun = time;
    run(...args);
  };

  const expired = (): void => {
    const time = Date.now();
    if (!due(time)) {
      const sinceCall = time - (lastCall ?? time);
      timer = setTimeout(expired, Math.min(waitMs - sinceCall, waitMs - (time - lastRun)));
      return;
    }
    timer = undefined;
    if (lastArgs) invoke(time);
  };

  return (...args: A): void => {
    const time = Date.now();
    const isDue = due(time);
    lastArgs = args;
    lastCall = time;
    if (isDue) {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(expired, waitMs);
      invoke(time);
      return;
    }
    timer ??= setTimeout(expired, waitMs);
  };
}
