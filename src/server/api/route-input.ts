import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import type { JsonBodyOf } from '../contract/operations.js';
import type { ApiOperationId, RouteOf } from '../contract-reader/contract.js';
import { fail } from '../ground/errors.js';
import { isPlainObject } from '../ground/plain-object.js';
import { JSON_LIMIT, jsonDeadline, readSizedJson } from '../http/body.js';
import { declaredBatch, jsonBodyCheck, queryCheck } from '../http/declared-input.js';
import { type Access, authenticate, type Caller } from '../rules/auth.js';

/** The operations anyone may call, without a key. */
type PublicOperation = 'openapi' | 'healthz' | 'readyz';

/** The operations whose body is one entry or a batch of them (`JsonReading.batch`). */
type OneOrBatchOperation = 'signUpload';

/**
 * A body that is one request, or a batch of them in one field (a sign's `files`): the
 * batch's form checked, each entry left for the route's rules to check on its own (as a
 * single request, its fault then carries its `index`).
 */
export type OneOrBatch =
  | { readonly batch: false; readonly entry: unknown }
  | { readonly batch: true; readonly entries: readonly unknown[] };

type BodyOf<Id extends ApiOperationId> = Id extends OneOrBatchOperation
  ? OneOrBatch
  : JsonBodyOf<Id>;

/**
 * What the route table hands a handler: the caller, authenticated as its entry says, and
 * the request's JSON body and query, each of the form its declaration gives (the
 * generated document's).
 */
export interface CheckedInput<Who, Body, Params = unknown, Query = unknown> {
  readonly request: FastifyRequest<{ Params: Params }>;
  readonly reply: FastifyReply;
  readonly caller: Who;
  readonly body: Body;
  readonly query: Query;
}

/**
 * A declared operation's input, its body typed from its declaration; the handler names the
 * path parameters and query it reads.
 */
export type RouteInput<Id extends ApiOperationId, Params = unknown, Query = unknown> = CheckedInput<
  Id extends PublicOperation ? null : Caller,
  BodyOf<Id>,
  Params,
  Query
>;

/** How a route's JSON body is read, before its declaration checks it. */
export interface JsonReading {
  /** At most this many bytes (`readSizedJson`; default `JSON_LIMIT`). */
  readonly limit?: number;
  /** A top-level array field whose entries are each a request: a fault carries its `index`. */
  readonly indexed?: string;
  /**
   * The body is one request or a batch of them in this field (`OneOrBatch`); one alone is
   * held to `JSON_LIMIT`, whatever `limit` a batch may have.
   */
  readonly batch?: string;
}

/** How the table enters a route, and the handler it then calls with `Input`. */
export interface EntryOf<Input> {
  /** Who may call it (`authenticate`), before anything of the request is read. */
  readonly access: Access | 'public';
  /** Its JSON body; absent: it reads none (it has none, or streams its own). */
  readonly json?: JsonReading;
  /** Written as a method, so that each handler may name the params and query it reads. */
  handle(ctx: ServiceContext, input: Input): Promise<void>;
}

/** One operation's entry in the route table: only a public operation names no access. */
export interface RouteEntry<Id extends ApiOperationId> extends EntryOf<RouteInput<Id>> {
  readonly access: Id extends PublicOperation ? 'public' : Access;
}

/**
 * The Fastify handler of a route: the caller authenticated, then the body read and
 * checked, then the query checked, each against the route's declaration, then its
 * handler. The checks are made as the app is built, so that a table that asks for a body
 * its declaration does not have fails there.
 */
export function enterRoute<Input extends CheckedInput<unknown, unknown>>(
  ctx: ServiceContext,
  route: RouteOf<string>,
  entry: EntryOf<Input>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const readBody = bodyReader(ctx, route, entry.json);
  const checkQuery = queryCheck(route);
  return async (request, reply) => {
    const caller =
      entry.access === 'public' ? null : await authenticate(ctx, request, entry.access);
    const body = readBody ? await readBody(request) : undefined;
    const query = checkQuery(request.query);
    const input = { request, reply, caller, body, query } as unknown as Input;
    await entry.handle(ctx, input);
  };
}

function bodyReader(
  ctx: ServiceContext,
  route: RouteOf<string>,
  json: JsonReading | undefined,
): ((request: FastifyRequest) => Promise<unknown>) | null {
  if (!json) return null;
  const read = (request: FastifyRequest) =>
    readSizedJson(request, { limit: json.limit, deadlineMs: jsonDeadline(ctx) });
  if (json.batch !== undefined) {
    const field = json.batch;
    const batch = declaredBatch(route, 'application/json', field);
    return async (request) => {
      const { value, bytes } = await read(request);
      if (isPlainObject(value) && value[field] !== undefined) {
        return { batch: true, entries: batch.form(value).entries } satisfies OneOrBatch;
      }
      if (bytes > JSON_LIMIT) {
        fail('invalid_request', `The JSON body is larger than ${JSON_LIMIT / 1024} KiB.`);
      }
      return { batch: false, entry: value } satisfies OneOrBatch;
    };
  }
  const check = jsonBodyCheck(route, { indexed: json.indexed });
  if (!check) throw new Error(`${route.operationId} declares no JSON body to read`);
  return async (request) => check((await read(request)).value);
}
