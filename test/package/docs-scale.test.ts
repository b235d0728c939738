import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { bucketCorsRules, bucketLifecycleRules } from '../../src/server/storage/s3/bucket-setup.js';
import { nginxConfig } from '../helpers/nginx.js';

/** The code blocks of one document, by language, with their indentation removed. */
async function blocks(file: string, language: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  const found: string[] = [];
  const fence = new RegExp(`^( *)\`\`\`${language}\\n([\\s\\S]*?)^\\1\`\`\``, 'gm');
  for (const match of text.matchAll(fence)) {
    const indent = match[1] ?? '';
    found.push(
      (match[2] ?? '')
        .split('\n')
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
        .join('\n')
        .trimEnd(),
    );
  }
  return found;
}

/**
 * What docs/running-at-scale.md tells an operator to deploy is what the tests run: the nginx
 * configuration the load-balancer tests start, the bucket rules `bucket setup` applies.
 */
describe('docs/running-at-scale.md', () => {
  it('shows the nginx configuration the tests run', async () => {
    const [shown] = await blocks('docs/running-at-scale.md', 'nginx');
    const expected = nginxConfig({
      apiListen: '8787',
      cdnListen: '8788',
      apiUpstreams: ['10.0.0.11:8787', '10.0.0.12:8787', '10.0.0.13:8787'],
      cdnUpstreams: ['10.0.0.11:8788', '10.0.0.12:8788', '10.0.0.13:8788'],
    });
    assert.equal(shown, expected.trimEnd());
  });

  it('shows the bucket rules that `npm run admin -- bucket setup` applies', async () => {
    const [cors, lifecycle] = (await blocks('docs/running-at-scale.md', 'json')).map(
      (text) => JSON.parse(text) as unknown,
    );
    assert.deepEqual(cors, { CORSRules: bucketCorsRules(['https://shop.example']) });
    assert.deepEqual(lifecycle, { Rules: bucketLifecycleRules() });
  });
});
