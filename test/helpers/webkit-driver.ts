import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './ports.js';

/**
 * WebKitGTK's WebDriver server (Debian's webkit2gtk-driver) on a free loopback port, for the
 * cross-browser run (web-test-runner.cross.config.mjs). WebKitGTK draws through GTK, which
 * needs a display even for automation: the driver runs inside `xvfb-run` (Debian's xvfb).
 * WebKitGTK is WebKit, the engine Safari is built on, not Safari itself.
 */
export interface WebKitDriver {
  port: number;
  stop(): void;
}

/** The MiniBrowser WebKitGTK ships, the browser WebKitWebDriver drives. */
export const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

async function answers(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/status`);
    return response.ok;
  } catch {
    return false;
  }
}

export async function startWebKitDriver(): Promise<WebKitDriver> {
  const port = await freePort();
  // Its own process group, so stopping it ends xvfb-run, Xvfb and the driver together.
  const child: ChildProcess = spawn(
    'xvfb-run',
    ['-a', 'WebKitWebDriver', `--port=${port}`, '--host=127.0.0.1'],
    { detached: true, stdio: 'ignore' },
  );
  const stop = () => {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
  };
  process.once('exit', stop);
  const deadline = Date.now() + 30_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error(`WebKitWebDriver did not answer on port ${port} within 30 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { port, stop };
}
