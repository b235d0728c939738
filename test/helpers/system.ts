/** Whether the tests run as root: what they may install, mount or run as another user. */
export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
