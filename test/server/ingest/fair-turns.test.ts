import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as settle } from 'node:timers/promises';
import fc from 'fast-check';
import { FairTurns } from '../../../src/server/ingest/fair-turns.js';

/** A job the test ends when it chooses. */
interface Job {
  id: number;
  key: string;
  perKey: number;
  started: boolean;
  runs: number;
  finish: () => void;
  settled: boolean;
}

const KEYS = ['a', 'b', 'c', 'd'];

const step = fc.oneof(
  fc.record({
    add: fc.constantFrom(...KEYS),
    perKey: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ finish: fc.nat() }),
);

/**
 * Drives a `FairTurns` with adds and finishes in any order, keeping its own account of
 * what waits and runs, and checks after every step what the scheduler promises.
 */
async function drive(
  concurrency: number,
  steps: Array<{ add: string; perKey: number } | { finish: number }>,
) {
  const turns = new FairTurns(concurrency);
  const jobs: Job[] = [];
  const starts: Job[] = [];
  const waiting = new Map<string, Job[]>(KEYS.map((key) => [key, []]));
  const running = new Map<string, number>(KEYS.map((key) => [key, 0]));
  /** Per key waiting and able to start: the other keys started since it became so. */
  const passedBy = new Map<string, Set<string>>();
  const eligible = (key: string) => {
    const head = waiting.get(key)?.[0];
    return head !== undefined && (running.get(key) as number) < head.perKey;
  };
  const add = (key: string, perKey: number) => {
    const job: Job = {
      id: jobs.length,
      key,
      perKey,
      started: false,
      runs: 0,
      settled: false,
      finish: () => assert.fail('finished before it started'),
    };
    jobs.push(job);
    waiting.get(key)?.push(job);
    void turns
      .run(key, perKey, () => {
        job.runs++;
        job.started = true;
        starts.push(job);
        return new Promise<number>((resolve) => {
          job.finish = () => resolve(job.id);
        });
      })
      .then((value) => {
        assert.equal(value, job.id, 'the promise settles with the job');
        job.settled = true;
      });
  };
  const check = async (before: () => void) => {
    const startsBefore = starts.length;
    before();
    await settle();
    // In the order they started, each checked against the state just before it (an end
    // may let a key's next two start: the head held back by its bound, then the one behind).
    for (const job of starts.slice(startsBefore)) {
      const couldStart = KEYS.filter(eligible);
      const queue = waiting.get(job.key) as Job[];
      assert.equal(queue[0], job, 'a key runs its jobs in the order they came');
      assert.ok(couldStart.includes(job.key), 'only a job within its bounds starts');
      queue.shift();
      running.set(job.key, (running.get(job.key) as number) + 1);
      for (const other of couldStart) {
        if (other === job.key) continue;
        const passed = passedBy.get(other) ?? new Set<string>();
        assert.ok(
          !passed.has(job.key),
          `${job.key} was served twice while ${other} waited its turn`,
        );
        passed.add(job.key);
        passedBy.set(other, passed);
      }
      passedBy.delete(job.key);
    }
    for (const key of KEYS) if (!eligible(key)) passedBy.delete(key);
    const runningNow = [...running.values()].reduce((sum, count) => sum + count, 0);
    assert.equal(turns.running, runningNow);
    assert.ok(runningNow <= concurrency, 'bounded per instance');
    if (runningNow < concurrency) {
      assert.deepEqual(KEYS.filter(eligible), [], 'a free place is never left idle');
    }
    assert.equal(
      turns.waiting,
      [...waiting.values()].reduce((sum, queue) => sum + queue.length, 0),
    );
  };
  const finishOne = (pick: number) => {
    const live = jobs.filter((job) => job.started && !job.settled && job.runs === 1);
    const job = live[pick % live.length];
    if (!job) return false;
    job.runs++; // marks it finished for `live`
    running.set(job.key, (running.get(job.key) as number) - 1);
    job.finish();
    return true;
  };
  for (const action of steps) {
    if ('add' in action) await check(() => add(action.add, action.perKey));
    else await check(() => finishOne(action.finish));
  }
  // Everything left runs out.
  for (let guard = 0; guard < 1000; guard++) {
    let finished = false;
    await check(() => {
      finished = finishOne(0);
    });
    if (!finished) break;
  }
  for (const job of jobs) {
    assert.equal(job.runs, 2, `job ${job.id} ran exactly once`);
    assert.ok(job.settled);
  }
  assert.equal(turns.running, 0);
  assert.equal(turns.waiting, 0);
}

describe('FairTurns: jobs bounded per instance and per key, served in turn across keys', () => {
  it('runs every job once, within both bounds, in turn across keys (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(step, { maxLength: 60 }),
        async (concurrency, steps) => drive(concurrency, steps),
      ),
      { numRuns: 300 },
    );
  });

  it("one key's long queue delays another key's job by one job, not by the queue", async () => {
    const turns = new FairTurns(1);
    const order: string[] = [];
    const ends: Array<() => void> = [];
    const job = (name: string) => () => {
      order.push(name);
      return new Promise<void>((resolve) => ends.push(resolve));
    };
    const all = [
      ...Array.from({ length: 10 }, (_, index) => turns.run('flood', 10, job(`flood${index}`))),
    ];
    await settle();
    all.push(turns.run('visitor', 2, job('visitor')));
    for (let index = 0; index < 3; index++) {
      await settle();
      ends.shift()?.();
    }
    await settle();
    assert.deepEqual(order.slice(0, 3), ['flood0', 'flood1', 'visitor']);
    while (ends.length > 0) {
      ends.shift()?.();
      await settle();
    }
    await Promise.all(all);
  });

  it('a job that throws or rejects frees its place and settles as it failed', async () => {
    const turns = new FairTurns(1);
    await assert.rejects(
      turns.run('k', 1, () => {
        throw new Error('at once');
      }),
      /at once/,
    );
    await assert.rejects(
      turns.run('k', 1, () => Promise.reject(new Error('later'))),
      /later/,
    );
    assert.equal(await turns.run('k', 1, async () => 'next'), 'next');
    assert.equal(turns.running, 0);
  });

  it('runNow starts only what would overtake no one', async () => {
    const turns = new FairTurns(2);
    let end: () => void = () => undefined;
    const held = turns.run('a', 1, () => new Promise<void>((resolve) => (end = resolve)));
    assert.equal(
      turns.runNow('a', 1, async () => 1),
      null,
      "the key's bound",
    );
    const now = turns.runNow('b', 1, async () => 2);
    assert.ok(now);
    assert.equal(await now, 2);
    const queued = turns.run('a', 1, async () => 3);
    assert.equal(
      turns.runNow('c', 1, async () => 4),
      null,
      'someone waits: no overtaking',
    );
    end();
    await held;
    assert.equal(await queued, 3);
    assert.throws(() => new FairTurns(0), TypeError);
  });
});
