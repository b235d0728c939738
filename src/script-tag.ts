/**
 * The script-tag bundle's entry (`dist/filehost.js`): registers `<file-uploader>` and
 * `<file-list>` and exports what a page script can use with them. Unlike the package's
 * main entry it leaves out `FilehostClient`'s whole-upload orchestration, which the
 * elements never call (Uppy runs their uploads): the bundle carries only what they need.
 */
import { defineElements } from './elements.js';

defineElements();

export { ApiError } from './client/api-error.js';
export { FilehostApi } from './client/client.js';
export * from './elements.js';
