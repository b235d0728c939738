/**
 * The script-tag bundle's entry (`dist/filehost.js`): registers `<file-uploader>` and
 * `<file-list>` and exports what a page script can use with them. Of the client it carries
 * only `FilehostConnection` (the transport and the list `<file-list>` reads): the upload
 * calls (`FilehostApi`) arrive with the upload engine, and `FilehostClient`'s whole-upload
 * orchestration, which the elements never call (Uppy runs their uploads), not at all.
 */

import { baseOf, registerTranslation, setTranslationLoader } from './elements/shared/localize.js';
import type { Translation } from './elements/shared/translation.js';
import { defineElements } from './elements.js';
import { SHIPPED_LOCALES } from './locales/index.js';

// A page's own language is fetched when an element first needs it, from beside this file,
// so a page never loads the other thirteen.
setTranslationLoader((lang) => {
  // One shipped per language, so its language names it: `pt-PT` gets `pt-BR`.
  const tag = SHIPPED_LOCALES.split(' ').find((shipped) => baseOf(shipped) === baseOf(lang));
  if (!tag) return undefined;
  // A specifier in a variable: bundlers leave it to the browser, which resolves it against
  // this file's own URL (a template literal, esbuild would try to bundle as a glob).
  const specifier = `./locales/${tag}.js`;
  return import(/* @vite-ignore */ specifier).then(
    (module: { default: Translation }) => registerTranslation(module.default),
    // Offline or not deployed beside the bundle: the elements speak English.
    () => {},
  );
});
defineElements();

export { ApiError } from './client/api-error.js';
export { FilehostConnection } from './client/connection.js';
export * from './elements.js';
