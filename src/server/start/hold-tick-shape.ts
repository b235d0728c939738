import { createHook } from 'node:async_hooks';

/**
 * Keeps one of Node's `process.nextTick` queue entries alive for the life of the process, so
 * that the hidden classes of those entries are never collected.
 *
 * Why: `nextTick` builds each entry as an object literal with computed keys (`{
 * [async_id_symbol]: id, [trigger_async_id_symbol]: trigger, callback, args }`). V8 remembers
 * the hidden class each of those keys is defined on, holding it weakly, and the entries live
 * only until the tick runs. A full garbage collection while no entry is queued, which the
 * service's start-up (compiling and loading far more than plain `node:http`) makes likely,
 * frees those classes; the next entry gets new ones, and V8 then marks the literal's key
 * sites megamorphic for good: every `nextTick` afterwards (`node:http` and streams call it
 * several times per answer) goes through V8's runtime, about 0.2 µs each instead of 0.05.
 * Holding one entry keeps its class and the chain it was built through, so the sites stay
 * monomorphic. The entry is taken from the only place Node hands it out, an async hook's
 * `init`, with the hook enabled for this one call.
 */
let heldTickEntry: object | undefined;

export function holdTickEntryShape(): void {
  if (heldTickEntry !== undefined) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && heldTickEntry === undefined) heldTickEntry = resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(() => {});
  } finally {
    hook.disable();
  }
}
