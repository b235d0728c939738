import { aTimeout, expect } from '@open-wc/testing';
import { emulateMedia } from '@web/test-runner-commands';
import axe from 'axe-core';

type ColorScheme = 'light' | 'dark';

/**
 * The colour schemes a test can put this browser in: both where the runner emulates
 * `prefers-color-scheme` (Chromium through Playwright), else only the one the browser runs
 * in (Firefox over WebDriver BiDi and WebKitGTK over WebDriver cannot emulate it: the
 * cross-browser run starts each of them once light and once dark instead).
 */
async function colorSchemes(): Promise<{ schemes: ColorScheme[]; emulated: boolean }> {
  try {
    await emulateMedia({ colorScheme: 'light' });
    return { schemes: ['light', 'dark'], emulated: true };
  } catch {
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    return { schemes: [dark ? 'dark' : 'light'], emulated: false };
  }
}

/** Every shadow root in `node` (itself a host or not), however deep. */
function shadowRootsIn(node: Element | ShadowRoot): ShadowRoot[] {
  const hosts =
    node instanceof Element
      ? [node, ...node.querySelectorAll('*')]
      : [...node.querySelectorAll('*')];
  return hosts.flatMap((host) =>
    host.shadowRoot ? [host.shadowRoot, ...shadowRootsIn(host.shadowRoot)] : [],
  );
}

/**
 * Until the colour transitions a switch of scheme started in `root` have ended. A fixed
 * wait was not enough on a loaded CI machine: axe once measured the drop zone's light
 * background still behind the dark scheme's text (contrast 1.17).
 */
async function transitionsEnded(root: Element): Promise<void> {
  // Two frames: the switch's style recalculation has started whatever it transitions.
  for (let frame = 0; frame < 2; frame++) await new Promise(requestAnimationFrame);
  const running = [
    ...root.getAnimations({ subtree: true }),
    ...shadowRootsIn(root).flatMap((shadow) => shadow.getAnimations()),
  ].filter((animation) => animation instanceof CSSTransition);
  await Promise.all(running.map((transition) => transition.finished.catch(() => undefined)));
}

/**
 * axe finds nothing in `root`, in light and in dark, on a page that follows the scheme (as a
 * dark page is dark behind the element too). `settle` runs after each switch (an element's
 * redraw); transitions (the drop zone's colours) get 250 ms, and then as long as they still
 * run, before contrast is measured.
 */
export async function auditInBothSchemes(
  root: Element,
  state: string,
  settle: () => Promise<unknown> = async () => undefined,
): Promise<void> {
  document.documentElement.style.colorScheme = 'light dark';
  document.body.style.background = 'Canvas';
  document.body.style.color = 'CanvasText';
  const { schemes, emulated } = await colorSchemes();
  for (const colorScheme of schemes) {
    if (emulated) await emulateMedia({ colorScheme });
    await settle();
    await aTimeout(250);
    await transitionsEnded(root);
    const { violations } = await axe.run(root);
    expect(
      violations.map(
        (v) =>
          `${v.id}: ${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary}`).join('; ')}`,
      ),
      `${state}, ${colorScheme}`,
    ).to.deep.equal([]);
  }
  if (emulated) await emulateMedia({ colorScheme: 'light' });
}
