import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { ServiceContext } from '../context.js';
import { refusedRequest } from '../http/request-guard.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../http/request-id.js';
import { countServedBody } from '../metrics/cdn-traffic.js';
import type { RangeSender } from '../storage/blob-store.js';
import { type FileAnswer, fileAnswer } from './file-answer.js';
import { plainFileId } from './memory-path.js';
import { servableFile, servedFile } from './served-file.js';

/**
 * The file a request asks for when the direct path may answer it: a GET or HEAD of a URL of
 * the plain shape (`/<id>` or `/<id>/<name>`, no query: no signed link and no variant to
 * decide) that the request guard lets through. Null for every other request.
 */
export function directFileId(request: IncomingMessage): string | null {
  if (request.method !== 'GET' && request.method !== 'HEAD') return null;
  const id = plainFileId(request.url ?? '');
  if (id === null || refusedRequest(request) !== null) return null;
  return id;
}

/**
 * The CDN's direct path: a public file asked for by `directFileId`'s kind of request,
 * answered straight from `node:http`, before the framework's routing, hooks and reply
 * objects, whether its bytes are in memory or in the store. Those cost as much as reading a
 * small file (a CPU profile, test/bench/README.md). The answer is the route's: the same
 * lookup (`served-file.ts`: the cache, else the database, which at scale is asked every
 * time), the same headers and the same decision (`file-answer.ts`: `200`, `206`, `304`).
 *
 * Resolves false, having written nothing, for anything else: no such file, a private one
 * (its link is checked by the routes), a range past the end (`416`), a file deleted since
 * its lookup, a store or database that failed. The routes then answer as they always do,
 * from the start (a second lookup, on paths that are rare or already failing).
 */
export async function answerDirectly(
  ctx: ServiceContext,
  id: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<boolean> {
  const wantsBytes = request.method === 'GET';
  let file: Awaited<ReturnType<typeof servedFile>>;
  try {
    file = await servedFile(ctx, id, wantsBytes, false);
  } catch {
    return false;
  }
  if (file?.row.visibility !== 'public') return false;
  const served = servableFile(ctx, file);
  const answer = fileAnswer(request.headers, served.size, served.headers);
  if (answer.status === 416) return false;
  if (answer.status === 304 || !wantsBytes) {
    response.writeHead(answer.status, named(request, answer.headers)).end();
    return true;
  }
  const { range } = answer;
  const sending = served.openSender(range ?? undefined);
  if (sending) return sendFromStore(ctx, request, response, answer, served.size, sending);
  let body: Awaited<ReturnType<typeof served.open>>;
  if (served.bytes) {
    body = range ? served.bytes.subarray(range.start, range.end + 1) : served.bytes;
  } else {
    try {
      body = await served.open(range ?? undefined);
    } catch {
      return false;
    }
    if (!body) return false;
  }
  response.writeHead(answer.status, named(request, answer.headers));
  countServedBody(ctx.metrics, range, served.size);
  if (Buffer.isBuffer(body)) {
    response.end(body);
    return true;
  }
  // A store that fails midway: the answer is cut (its length was promised), as the routes
  // do; a client that goes away ends the read.
  body.once('error', (error: unknown) =>
    ctx.log.warn({ err: error }, 'a store failed while the CDN was sending a file'),
  );
  pipeline(body, response, () => {});
  return true;
}

/** The answer's bytes sent by the store itself (`BlobStore.openSender`). */
async function sendFromStore(
  ctx: ServiceContext,
  request: IncomingMessage,
  response: ServerResponse,
  answer: Extract<FileAnswer, { status: 200 | 206 }>,
  size: number,
  sending: Promise<RangeSender | null>,
): Promise<boolean> {
  let sender: RangeSender | null;
  try {
    sender = await sending;
  } catch {
    return false;
  }
  if (!sender) return false;
  response.writeHead(answer.status, named(request, answer.headers));
  countServedBody(ctx.metrics, answer.range, size);
  // A store that fails midway: the answer is cut (its length was promised), as the routes do.
  sender
    .sendTo(response)
    .catch((error: unknown) =>
      ctx.log.warn({ err: error }, 'a store failed while the CDN was sending a file'),
    );
  return true;
}

/**
 * `headers` (the answer's own, `fileAnswer`) with the request's id, named as the framework
 * names a request (`server-options.ts`), only once this path is sure to answer: a request it
 * hands back is named by the framework. In the one object given to `writeHead`: a header set
 * before it (`setHeader`) makes `writeHead` copy every other one through `setHeader` too
 * (see `answer-head.ts`).
 */
function named(request: IncomingMessage, headers: Record<string, string>): Record<string, string> {
  headers[REQUEST_ID_HEADER] = requestIdOf(request.headers['x-request-id']);
  return headers;
}
