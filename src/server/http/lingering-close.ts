import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How much of a refused body is read and dropped after an early answer, at most: one part
 * of the default part size (`FILEHOST_PART_SIZE`, 16 MiB), so the answer to a refused part
 * always gets across, or a few seconds, whichever comes first.
 */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;
export const LINGER_MAX_MS = 5_000;
/** How often the bound is checked: the parser reads the socket itself, so it is polled. */
const CHECK_EVERY_MS = 20;

export interface LingerLog {
  warn(details: object, message: string): void;
}

/**
 * An early answer (any status sent before the request's body was read: a forged part
 * credential, a one-request upload over the limit) must reach the client. A server that
 * closes its socket while the client is still sending makes the kernel answer the bytes
 * still arriving with a reset, and a reset discards what the client had not read yet, our
 * answer included (RFC 9112, section 9.6). So after an early answer the rest of the body is
 * read and dropped, up to `LINGER_MAX_BYTES` or `LINGER_MAX_MS`; past that the connection
 * is cut and the log says so.
 *
 * Two cases:
 * - The connection stays open (keep-alive): Node drops the rest of the body itself so the
 *   next request can be parsed (unless a handler had begun reading it: then it is resumed
 *   here); only the bound is ours.
 * - The connection closes after this answer (`Connection: close`, HTTP/1.0, a closing
 *   server): Node ends and destroys the socket as soon as the answer is written
 *   (`socket.destroySoon()`, called by `node:http` after the last response). That call is
 *   made lingering for sockets whose request still has body to come: the write side ends
 *   (our FIN follows the answer), the body is read to its end, then the socket closes.
 *
 * `requestOn` names the request a socket is answering (the server's own bookkeeping).
 * Answers what to call on each request, before it is answered (the server's one `request`
 * listener calls it with its own bookkeeping: listeners are run one by one on every
 * request, a cost at the CDN's rate).
 */
export function lingerAfterEarlyAnswers(
  requestOn: (socket: Socket) => IncomingMessage | undefined,
  log: LingerLog,
): (request: IncomingMessage, response: ServerResponse) => void {
  /** `destroySoon` made lingering: given only to sockets that carried a request with a body. */
  const lingerBeforeClosing = (socket: Socket) => {
    if (Object.hasOwn(socket, 'destroySoon')) return;
    const closeNow = socket.destroySoon;
    socket.destroySoon = function lingeringDestroySoon(this: Socket) {
      const request = requestOn(this);
      if (!request || request.complete || this.destroyed) {
        closeNow.call(this);
        return;
      }
      if (this.writable) this.end();
      dropRestOfBody(this, request, log, { closeAtEnd: true });
    };
  };
  return (request, response) => {
    // No body to drop (RFC 9112 §6.3: neither header, no body): the CDN's GETs, whose
    // rate a listener per response would cost; their sockets keep Node's own `destroySoon`
    // (a socket of a shape of its own slows every write on it).
    const headers = request.headers;
    if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
      return;
    }
    lingerBeforeClosing(request.socket);
    response.once('finish', () => {
      const socket = request.socket;
      // A closing connection was handled by `destroySoon` above (node:http calls it
      // before this listener runs); here only connections that stay open.
      if (request.complete || socket.destroyed || !socket.writable) return;
      dropRestOfBody(socket, request, log, { closeAtEnd: false });
    });
  };
}

function dropRestOfBody(
  socket: Socket,
  request: IncomingMessage,
  log: LingerLog,
  options: { closeAtEnd: boolean },
): void {
  const startedAt = Date.now();
  const bytesAtStart = socket.bytesRead;
  const stop = () => {
    clearInterval(check);
    request.off('end', bodyEnded);
    socket.off('close', stop);
  };
  const bodyEnded = () => {
    stop();
    if (options.closeAtEnd) socket.destroy();
  };
  const check = setInterval(() => {
    const dropped = socket.bytesRead - bytesAtStart;
    const waited = Date.now() - startedAt;
    if (dropped <= LINGER_MAX_BYTES && waited <= LINGER_MAX_MS) return;
    stop();
    socket.destroy();
    log.warn(
      { client: socket.remoteAddress, droppedBytes: dropped, waitedMs: waited },
      'cut a connection whose client kept sending a refused body past the lingering bound',
    );
  }, CHECK_EVERY_MS);
  check.unref();
  request.once('end', bodyEnded);
  socket.once('close', stop);
  // A handler that began reading the body and stopped (a size it refused midway) left it
  // paused; flowing with no reader, its bytes are dropped.
  request.resume();
}
