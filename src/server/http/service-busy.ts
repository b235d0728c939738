import type { FastifyRequest } from 'fastify';

/**
 * Runs `work`, a step of the service's own that may take long with the request's body all
 * in (a file's scan waiting its turn, clamd reading a large file), with the connection's
 * idle timeout off meanwhile: that timeout cuts clients that stop sending, and here the
 * client waits on the service. It is back on (as it was) once `work` settles.
 */
export async function whileServiceWorks<T>(
  request: FastifyRequest,
  work: () => Promise<T>,
): Promise<T> {
  const socket = request.raw.socket;
  const idleMs = socket.timeout ?? 0;
  if (idleMs > 0) socket.setTimeout(0);
  try {
    return await work();
  } finally {
    if (idleMs > 0 && !socket.destroyed) socket.setTimeout(idleMs);
  }
}
