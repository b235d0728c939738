/**
 * The codes of `decisions.md` that share their words with another, because they mean the
 * same to the person at the page; every other code is worded under its own name. Each is an
 * answer of the service, so the list arrives with the words of its answers (`en-service.ts`,
 * `loadServiceWords`), which an element fetches before it words one. A module of its own:
 * `en-service.ts` fills it and `failure-text.ts` (which loads that chunk) reads it, and
 * neither imports the other.
 */
export const SAME_WORDS: Record<string, string> = {};
