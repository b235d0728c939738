/**
 * `filehost/api`: the wire contract the client, the elements and the service share: error
 * codes, event types, limits, file-name rules, route paths and the request and response
 * types. `@filehost/server` imports it from here rather than carrying a copy.
 */
export * from './checksum.js';
export * from './errors.js';
export * from './events.js';
export * from './limits.js';
export * from './names.js';
export * from './routes.js';
export type * from './types.js';
