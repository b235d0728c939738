/**
 * `node --import ./test/bench/without-placeholder.mjs`: the service as it was before
 * placeholders (#58), for `placeholder-bench.ts`'s contender. The ingest step's
 * `./placeholder.js` resolves to a module that finds no image (`hasPlaceholder` false), so
 * ingest neither copies nor decodes for a placeholder; everything else is this tree's code.
 */
import { register } from 'node:module';

const NO_PLACEHOLDER = `data:text/javascript,${encodeURIComponent(
  'export const hasPlaceholder = () => false; export const placeholderOf = async () => null;',
)}`;

const HOOKS = `
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  return resolved.url.endsWith('/src/server/ingest/placeholder.ts')
    ? { url: ${JSON.stringify(NO_PLACEHOLDER)}, shortCircuit: true }
    : resolved;
}`;

register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);
