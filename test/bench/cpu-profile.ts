/** What the bench scripts read of a V8 CPU profile (`node --cpu-prof`). */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  timeDeltas: number[];
}

/** CLOCK_MONOTONIC in microseconds: the clock of a V8 profile's timestamps, on Linux. */
export const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);
