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

/**
 * axe finds nothing in `root`, in light and in dark, on a page that follows the scheme (as a
 * dark page is dark behind the element too). `settle` runs after each switch (an element's
 * redraw); transitions (the drop zone's colours) get 250 ms before contrast is measured.
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
