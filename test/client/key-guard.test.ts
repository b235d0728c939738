// @also-on-node-24: pure JavaScript, no service (npm run test:node24)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FilehostApi, FilehostConnection } from '../../src/client/index.js';
import { connect } from '../../src/elements/shared/connection.js';

const SECRET = 'sk_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEF';
const PUBLISHABLE = 'pk_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEF';

/**
 * "No secret key in a page", as the elements and the browser client check it: a key with
 * whitespace around it is the same key, refused the same way, and sent trimmed.
 */
describe('the secret-key guard of pages', () => {
  const globals = globalThis as { window?: unknown; document?: unknown };
  before(() => {
    // What the client takes for a browser.
    globals.window = {};
    globals.document = {};
  });
  after(() => {
    delete globals.window;
    delete globals.document;
  });

  it('refuses a secret key with whitespace around it, in the client and in both elements', () => {
    for (const key of [SECRET, ` ${SECRET}`, `\t${SECRET}\n`, `${SECRET} `]) {
      assert.throws(
        () => new FilehostApi({ endpoint: 'http://localhost:1', apiKey: key }),
        /secret key/,
        JSON.stringify(key),
      );
      for (const Client of [FilehostConnection, FilehostApi])
        assert.equal(connect(Client, 'http://localhost:1', key), 'secret_key', JSON.stringify(key));
    }
    assert.equal(connect(FilehostConnection, 'http://localhost:1', '   '), 'missing_auth');
    assert.equal(connect(FilehostApi, 'ftp://localhost:1', PUBLISHABLE), 'no_endpoint');
    assert.throws(
      () => new FilehostApi({ endpoint: 'http://localhost:1', apiKey: ' ' }),
      /required/,
    );
  });

  it('sends a publishable key trimmed', async () => {
    const sent: string[] = [];
    const api = new FilehostApi({
      endpoint: 'http://localhost:1',
      apiKey: ` ${PUBLISHABLE}\n`,
      fetch: async (_input, init) => {
        sent.push(new Headers(init?.headers).get('Authorization') ?? '');
        return new Response(JSON.stringify({ files: [], nextCursor: null }));
      },
    });
    await api.listFiles();
    assert.deepEqual(sent, [`Bearer ${PUBLISHABLE}`]);
    // Each element gets the client it asked for: the list only the reads, the engine all.
    const list = connect(FilehostConnection, 'http://localhost:1', ` ${PUBLISHABLE}`);
    assert.ok(list instanceof FilehostConnection && !(list instanceof FilehostApi));
    assert.ok(connect(FilehostApi, 'http://localhost:1', ` ${PUBLISHABLE}`) instanceof FilehostApi);
  });
});
