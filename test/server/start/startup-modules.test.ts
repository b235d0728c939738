import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startedToBanner } from '../../helpers/service.js';

/**
 * Node's module hooks, in their own thread: every module loaded is named on stderr. Passed
 * as a data: URL, so that the service starts exactly as `npm run server` starts it.
 */
const LOGGING_HOOKS = `data:text/javascript,${encodeURIComponent(
  "export async function load(url, context, next) { process.stderr.write('LOADED ' + url + '\\n'); return next(url, context); }",
)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'; register(${JSON.stringify(LOGGING_HOOKS)});`,
)}`;

/** The modules the embedded service loads until it is ready (its banner's secret key). */
async function modulesLoadedAtStart(): Promise<string[]> {
  const { stderr } = await startedToBanner('.', ['--import', REGISTER]);
  return [...stderr.matchAll(/^LOADED (\S+)$/gm)].map((match) => match[1] as string);
}

describe("what the service loads to start (its start-up time's share)", () => {
  it('checks requests against the generated contract: no TypeBox, no declarations, no Ajv until a body is checked', async () => {
    const loaded = await modulesLoadedAtStart();
    assert.ok(
      loaded.some((url) => url.endsWith('/src/api/openapi.json')),
      'the generated document is what it reads',
    );
    assert.ok(loaded.length > 50, `${loaded.length} modules: the hooks saw the start-up`);
    const authoring = loaded.filter((url) =>
      /\/node_modules\/(@sinclair\/typebox|ajv|ajv-formats)\/|\/src\/server\/contract\//.test(url),
    );
    assert.deepEqual(authoring, []);
  });
});
