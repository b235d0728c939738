/**
 * The languages shipped with filehost besides English, each `src/locales/<tag>.ts`: in the
 * script-tag bundle each is its own file (`locales/<tag>.js` beside `filehost.js`), fetched
 * only by a page in that language; from npm, `filehost/locales/<tag>`.
 */
export const SHIPPED_LOCALES = 'ar de es fr he it ja ko nl pl pt-BR tr uk zh-CN';
