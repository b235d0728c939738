/**
 * The main entry (and the script-tag bundle's): registers `<file-uploader>` and
 * `<file-list>` and exports the element classes, the typed client and the API's types.
 * `filehost/elements` gives the same classes without registering them.
 */
import { defineElements } from './elements.js';

defineElements();

export * from './client/index.js';
export * from './elements.js';
