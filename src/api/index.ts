export * from './checksum.js';
export * from './errors.js';
export * from './events.js';
export * from './limits.js';
export * from './routes.js';
export type * from './types.js';
