/**
 * The one-file bundle's entry (`dist/filehost.bundle.js`): the script-tag entry with every
 * chunk inlined (see vite.config.ts) and every shipped language in it, registered before an
 * element first draws (each draws in a microtask after it is defined, once this module has
 * run), so a page in any of them never fetches a language nor shows English words among
 * its own.
 */
import { registerTranslation } from './elements/shared/localize.js';
import { EVERY_LANGUAGE } from './every-language.js';

registerTranslation(...EVERY_LANGUAGE);

export * from './script-tag.js';
