import { runCommand, signalAll } from './helpers/stage-command.js';
import { failureDigest, testCounts } from './helpers/test-counts.js';

/**
 * `npm test`: every check, with the stages that share nothing run side by side.
 *
 * The stages wait far more than they compute (for services, PostgreSQL and RGW, Chromium,
 * npm), so on two cores they overlap well: the linter and the type check, the Node tests on
 * the embedded deployment, the same suites on the scale deployment, the browser tests, and
 * the end-to-end tests on the build (then the Node 24 run, which needs that build). Each
 * stage's output is held and printed as one block when it ends, headed by its name, result
 * and time, so the output reads as if they had run one after the other.
 *
 * What they share is made once, before them: the Debian packages, Chromium, Firefox ESR and
 * WebKitGTK (installed one after the other, apt takes one at a time), and one PostgreSQL and
 * one Ceph RGW for every stage (each test service still gets a fresh database and bucket).
 * The test files tagged `@runs-alone` (a timing that a busy machine would break) are left
 * out of the stages and run after all of them, by themselves.
 *
 * The last line is the summary a CI reads: `N passed, N failed`, the tests of every stage
 * (a stage that failed without a failing test, the linter say, counts as one failure).
 */
const RUN_NODE_TESTS = ['npx', 'tsx', 'test/run-node-tests.ts'];

/**
 * How long a stage may run before it is cut, minutes (`FILEHOST_STAGE_MINUTES`): a test that
 * hangs then fails the run with what was still running, instead of a CI that ends at its own
 * limit with nothing said (the project's CI allows 90 minutes; installing takes about 10, the
 * stages side by side about 20 on a quiet machine, and those that run alone about 3).
 */
const STAGE_MINUTES = Number(process.env.FILEHOST_STAGE_MINUTES) || 45;
/** The same for the tests that run alone, after the others. */
const ALONE_MINUTES = Math.max(1, Math.round(STAGE_MINUTES / 3));
interface Stage {
  name: string;
  /** Its ceiling (minutes); `STAGE_MINUTES` unless said. */
  minutes?: number;
  /** Run one after the other; the first that fails ends the stage, unless `keepGoing`. */
  commands: string[][];
  /** Commands that do not need each other: all run, whatever the ones before gave. */
  keepGoing?: boolean;
}

const PREPARE: string[][] = [
  ['npx', 'tsx', 'test/helpers/test-servers.ts'],
  ['npx', 'tsx', 'test/helpers/ensure-browser.ts'],
  ['npx', 'tsx', 'test/helpers/ensure-cross-browsers.ts'],
];

const STAGES: Stage[] = [
  {
    name: 'lint and type check',
    commands: [
      ['npm', 'run', '-s', 'lint'],
      ['npm', 'run', '-s', 'typecheck'],
    ],
  },
  { name: 'Node tests, embedded', commands: [[...RUN_NODE_TESTS, '--not-alone']] },
  {
    name: 'Node tests, scale',
    commands: [[...RUN_NODE_TESTS, '--scale', '--not-alone', 'test/server', 'test/client']],
  },
  { name: 'browser tests', commands: [['npm', 'run', '-s', 'test:browser']] },
  // The editor's, the language and the engine's tests in Firefox ESR and WebKitGTK (#57).
  {
    name: 'browser tests, Firefox and WebKit',
    commands: [['npm', 'run', '-s', 'test:browser:cross']],
  },
  {
    name: 'end to end, and Node 24',
    commands: [
      // The build without its last step, which writes custom-elements.json again: the Node
      // stage's manifest test reads that file meanwhile (and fails if it is not what the
      // analyzer makes of the sources, so the committed one is the one to pack).
      ['npm', 'run', '-s', 'build:files'],
      [...RUN_NODE_TESTS, '--not-alone', 'test/e2e'],
      [...RUN_NODE_TESTS, '--scale', '--not-alone', 'test/e2e'],
      [...RUN_NODE_TESTS, '--node24', 'test/client', 'test/e2e'],
    ],
  },
];

/** After every stage, by themselves: the files tagged `@runs-alone`, in each deployment. */
const ALONE: Stage = {
  name: 'tests that run alone',
  minutes: ALONE_MINUTES,
  keepGoing: true,
  commands: [
    // No folder: every Node test folder but the browser's and the end-to-end one.
    [...RUN_NODE_TESTS, '--only-alone'],
    [...RUN_NODE_TESTS, '--only-alone', 'test/e2e'],
    [...RUN_NODE_TESTS, '--scale', '--only-alone', 'test/server', 'test/client', 'test/e2e'],
  ],
};

interface Result {
  stage: Stage;
  code: number;
  seconds: number;
  output: string;
}

async function runStage(stage: Stage, env: NodeJS.ProcessEnv): Promise<Result> {
  const started = performance.now();
  const deadline = started + (stage.minutes ?? STAGE_MINUTES) * 60_000;
  const output = { text: '' };
  let code = 0;
  for (const command of stage.commands) {
    output.text += `$ ${command.join(' ')}\n`;
    if (performance.now() >= deadline) {
      output.text += `✖ not started, the stage's ceiling had passed: ${command.join(' ')}\n`;
      code ||= 124;
      continue;
    }
    code ||= await runCommand(command, env, output, { deadline });
    if (code !== 0 && !stage.keepGoing) break;
  }
  const result = {
    stage,
    code,
    seconds: (performance.now() - started) / 1000,
    output: output.text,
  };
  printResult(result);
  return result;
}

function printResult({ stage, code, seconds, output }: Result): void {
  const verdict = code === 0 ? 'passed' : `FAILED (exit ${code})`;
  const rule = '─'.repeat(8);
  console.log(`\n${rule} ${stage.name}: ${verdict} in ${seconds.toFixed(0)} s ${rule}`);
  process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
}

async function main(): Promise<number> {
  // Ctrl-C: each stage leads a process group of its own, so it is passed on to them; this
  // process waits for them to end, then stops the shared servers.
  process.on('SIGINT', () => signalAll('SIGINT'));
  // The AWS SDK warns on Node 20 that its future versions need Node 22; ours is pinned.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const command of PREPARE) await runCommand(command, env, null);

  const { SHARED_SERVERS_ENV, startSharedServers } = await import('./helpers/scale.js');
  let stopShared = async () => {};
  if (!process.env[SHARED_SERVERS_ENV]) {
    // Missing servers: each test file decides for itself (skip, or fail under CI).
    const shared = await startSharedServers().catch((error: Error) => ({ skip: error.message }));
    if ('skip' in shared) console.warn(`PostgreSQL and RGW did not start: ${shared.skip}`);
    else {
      Object.assign(env, shared.env);
      stopShared = shared.stop;
    }
  }
  const started = performance.now();
  try {
    console.log(`Side by side: ${STAGES.map((stage) => stage.name).join('; ')}.`);
    console.log("Each stage's output is printed when it ends.");
    const results = await Promise.all(STAGES.map((stage) => runStage(stage, env)));
    results.push(await runStage(ALONE, env));

    // Again at the end, short: a CI that keeps only a log's tail still shows what failed.
    for (const result of results.filter((each) => each.code !== 0)) {
      console.log(`\nWhat failed in ${result.stage.name}:`);
      for (const line of failureDigest(result.output)) console.log(`  ${line}`);
    }
    const minutes = ((performance.now() - started) / 60_000).toFixed(1);
    console.log(`\nStages (${minutes} min in all):`);
    let passed = 0;
    let failed = 0;
    for (const result of results) {
      const tests = testCounts(result.output);
      passed += tests.passed;
      failed += tests.failed || (result.code === 0 ? 0 : 1);
      const verdict = result.code === 0 ? 'passed' : 'FAILED';
      console.log(
        `  ${result.stage.name.padEnd(26)} ${verdict.padEnd(7)} ${result.seconds.toFixed(0).padStart(5)} s`,
      );
    }
    console.log(`${passed} passed, ${failed} failed`);
    return failed === 0 ? 0 : 1;
  } finally {
    await stopShared();
  }
}

process.exit(await main());
