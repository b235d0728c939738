import { AssertionError } from 'node:assert';
import { appendFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { API_ERROR_STATUS, type ApiErrorCode, isApiErrorCode } from '../../src/api/errors.js';
import document from '../../src/api/openapi.json' with { type: 'json' };

/**
 * The OpenAPI document as a contract the tests hold the service to: every exchange a test
 * has with a test service (through `fetch`, `t.api`, the protocol helpers, the typed client,
 * `rawHttp`, `rawExchange`) is checked against `src/api/openapi.json` by Ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1), so the document cannot drift from the code.
 *
 * - The answer is always checked: its status must be documented for the operation, its
 *   required headers present and valid, its body of a documented media type and, for JSON,
 *   valid against the schema. An answer to a path or method the document does not have must
 *   be a documented error.
 * - The request is checked too (path, method, key, parameters, body), but a request outside
 *   the document may be one a test made malformed on purpose: it is a violation only when
 *   the service accepted it (answered below 400), since the document then says less than
 *   the service does.
 */

/** Which of the service's two origins an exchange went to. */
export type Server = 'api' | 'cdn';

export interface Exchange {
  server: Server;
  method: string;
  url: URL;
  requestHeaders: Headers;
  /** The body as text when it is a string (JSON bodies are), `true` for another body, else none. */
  requestBody: string | true | undefined;
  /** The media type fetch gives a body that has no Content-Type of its own (FormData: multipart). */
  implicitType?: string;
  /** Set for exchanges whose request was built by hand (raw sockets): only the answer is checked. */
  rawRequest?: boolean;
  status: number;
  responseHeaders: Headers;
  /** The body as text when it was read (JSON); undefined when it was not. */
  responseBody: string | undefined;
}

// ajv-formats is CommonJS with a default export; under NodeNext its callable is `.default`.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const DOC_ID = 'openapi.json';

function makeAjv(coerceTypes: boolean): Ajv2020 {
  // strict: false, because the schemas sit inside a document with OpenAPI's own keywords.
  const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, DOC_ID);
  return ajv;
}
const bodies = makeAjv(false);
/** Path, query and header values are strings on the wire: `limit=5` is the integer 5. */
const parameterValues = makeAjv(true);

const compiled = new Map<string, ValidateFunction>();
function validatorAt(ajv: Ajv2020, pointer: string[]): ValidateFunction {
  const fragment = pointer
    .map((segment) => encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1')))
    .join('/');
  const key = `${ajv === bodies ? 'b' : 'p'}#/${fragment}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOC_ID}#/${fragment}` });
    compiled.set(key, validate);
  }
  return validate;
}

type Json = Record<string, unknown>;
const doc = document as unknown as Json;

/** A local `$ref` followed, with the pointer of what it names. */
function resolve(value: unknown, pointer: string[]): { value: Json; pointer: string[] } {
  const object = value as Json;
  if (typeof object.$ref !== 'string') return { value: object, pointer };
  const path = object.$ref.replace(/^#\//, '').split('/');
  let target: unknown = doc;
  for (const segment of path) target = (target as Json)[segment];
  return resolve(target, path);
}

/**
 * A path template as a regular expression: a parameter is one segment, except one marked
 * `x-rest-of-path` (the CDN's decorative name), which is the rest of the path, `/` included.
 */
function templatePattern(template: string, item: Json): RegExp {
  const rest = new Set(
    ((item.parameters as Json[] | undefined) ?? [])
      .filter((parameter) => parameter['x-rest-of-path'] === true)
      .map((parameter) => parameter.name),
  );
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      return rest.has(name) ? '(.+)' : '([^/]+)';
    })
    .join('');
  return new RegExp(`^${source}$`);
}

interface Operation {
  path: string;
  pathParams: Record<string, string>;
  pointer: string[];
  operation: Json | undefined;
}

/** Where a path is served: the API unless it names servers, the CDN's or both (health). */
function serversOf(item: Json): Set<Server> {
  if (!('servers' in item)) return new Set(['api']);
  const urls = (item.servers as Array<{ url: string }>).map((server) => server.url);
  return new Set(urls.map((url): Server => (url === '{apiUrl}' ? 'api' : 'cdn')));
}

const paths = Object.entries(doc.paths as Record<string, Json>)
  .map(([template, item]) => ({
    template,
    item,
    servers: serversOf(item),
    names: [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string),
    pattern: templatePattern(template, item),
  }))
  // Concrete paths match before templated ones (`/v1/uploads/complete` before `{id}`).
  .sort((a, b) => a.names.length - b.names.length);

function findOperation(server: Server, method: string, pathname: string): Operation | null {
  for (const path of paths) {
    if (!path.servers.has(server)) continue;
    const match = path.pattern.exec(pathname);
    if (!match) continue;
    const pathParams = Object.fromEntries(
      path.names.map((name, index) => [name, decodeParam(match[index + 1] as string)]),
    );
    const verb = method.toLowerCase();
    return {
      path: path.template,
      pathParams,
      pointer: ['paths', path.template, verb],
      operation: path.item[verb] as Json | undefined,
    };
  }
  return null;
}

/** A path segment as the router hands it over; a malformed escape is left as it is. */
function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function essence(contentType: string | null | undefined): string | null {
  if (!contentType) return null;
  return contentType.split(';')[0]?.trim().toLowerCase() || null;
}

/** The key of `content` that a media type falls under: exact, `type/*`, then `*\/*`. */
function contentKey(content: Json, type: string): string | null {
  if (type in content) return type;
  const range = `${type.split('/')[0]}/*`;
  if (range in content) return range;
  return '*/*' in content ? '*/*' : null;
}

function schemaErrors(validate: ValidateFunction, value: unknown, what: string): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (error) => `${what}${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`,
  );
}

function parseJson(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null;
  }
}

/** What is wrong with the request against the operation the document gives it. */
function requestProblems(exchange: Exchange, found: Operation | null): string[] {
  if (!found) return [`no documented path ${exchange.url.pathname}`];
  const { operation } = found;
  if (!operation) return [`${exchange.method} is not documented on ${found.path}`];
  const problems: string[] = [];
  const security = (operation.security ?? doc.security) as unknown[];
  if (
    security.length > 0 &&
    !/^bearer \S+$/i.test((exchange.requestHeaders.get('authorization') ?? '').trim())
  ) {
    problems.push('no Authorization: Bearer <key>');
  }
  const pathItem = doc.paths as Record<string, Json>;
  const declared = [
    ...((pathItem[found.path]?.parameters as unknown[]) ?? []).map((p, i) =>
      resolve(p, ['paths', found.path, 'parameters', String(i)]),
    ),
    ...((operation.parameters as unknown[]) ?? []).map((p, i) =>
      resolve(p, [...found.pointer, 'parameters', String(i)]),
    ),
  ];
  for (const { value: parameter, pointer } of declared) {
    const name = parameter.name as string;
    const raw =
      parameter.in === 'path'
        ? found.pathParams[name]
        : parameter.in === 'query'
          ? (exchange.url.searchParams.get(name) ?? undefined)
          : (exchange.requestHeaders.get(name) ?? undefined);
    if (raw === undefined) {
      if (parameter.required === true) problems.push(`${parameter.in} ${name} missing`);
      continue;
    }
    // Each call gets its own copy to coerce, as Ajv coerces in place.
    const holder = { value: raw };
    const validate = validatorAt(parameterValues, [...pointer, 'schema']);
    if (!validate(holder.value)) {
      problems.push(
        `${parameter.in} ${name}=${JSON.stringify(raw)}: ${validate.errors?.[0]?.message}`,
      );
    }
  }
  const body = exchange.requestBody;
  const requestBody = operation.requestBody
    ? resolve(operation.requestBody, [...found.pointer, 'requestBody'])
    : null;
  if (body === undefined || body === '') {
    if (requestBody?.value.required === true) problems.push('no request body');
    return problems;
  }
  if (!requestBody) return [...problems, 'a request body where none is documented'];
  const type =
    essence(exchange.requestHeaders.get('content-type')) ??
    exchange.implicitType ??
    (typeof body === 'string' ? 'text/plain' : 'application/octet-stream');
  const content = requestBody.value.content as Json;
  const key = contentKey(content, type);
  if (!key) return [...problems, `request media type ${type} is not documented`];
  if (key === 'application/json' && typeof body === 'string') {
    const parsed = parseJson(body);
    if (!parsed) return [...problems, 'the JSON body does not parse'];
    const validate = validatorAt(bodies, [...requestBody.pointer, 'content', key, 'schema']);
    problems.push(...schemaErrors(validate, parsed.value, 'request body'));
  }
  return problems;
}

const ERROR_RESPONSE = ['components', 'responses'];

/**
 * The documented error response of each status, for answers outside any operation: the
 * component that allows every code of that status (by the service's own table of codes
 * and statuses). Operations may name narrower ones, of the codes they can answer.
 */
const errorResponses = new Map<number, string[]>();
for (const [name, response] of Object.entries(
  (doc.components as Json).responses as Record<string, Json>,
)) {
  const codes = errorCodesOf(response);
  const status = codes?.[0] === undefined ? undefined : API_ERROR_STATUS[codes[0]];
  if (status === undefined) continue;
  const all = Object.keys(API_ERROR_STATUS).filter(
    (code) => API_ERROR_STATUS[code as ApiErrorCode] === status,
  );
  // The first such (the CDN's own 404 comes after the general one and adds headers).
  if (codes?.length === all.length && !errorResponses.has(status)) {
    errorResponses.set(status, [...ERROR_RESPONSE, name]);
  }
}

/** The codes an error response allows (its schema's `allOf[1]`), or null for another response. */
export function errorCodesOf(response: Json): ApiErrorCode[] | null {
  type Narrowed = { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } };
  const schema = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)
    ?.schema as { allOf?: (Narrowed & { anyOf?: Narrowed[] })[] } | undefined;
  // The body narrows ErrorBody to its codes, in one object or in a union of objects (a
  // refusal whose codes carry different fields: `infected` its `signature`).
  const narrowed = schema?.allOf?.[1];
  const codes = (narrowed?.anyOf ?? (narrowed ? [narrowed] : [])).flatMap(
    (each) => each.properties?.error?.properties?.code?.enum ?? [],
  );
  return codes.length > 0 && codes.every(isApiErrorCode) ? (codes as ApiErrorCode[]) : null;
}

function errorResponseFor(status: number): string[] | null {
  return errorResponses.get(status) ?? null;
}

/** What is wrong with the answer against the response the document gives it. */
function responseProblems(exchange: Exchange, found: Operation | null): string[] {
  let pointer: string[] | null;
  if (found?.operation) {
    const responses = found.operation.responses as Json;
    const status = String(exchange.status);
    const key = [status, `${status[0]}XX`, 'default'].find((candidate) => candidate in responses);
    if (!key) return [`status ${exchange.status} is not documented for ${found.pointer.join(' ')}`];
    pointer = [...found.pointer, 'responses', key];
  } else if (exchange.method === 'OPTIONS' && exchange.server === 'api') {
    // A preflight is answered on any API path (info.description).
    pointer = [...ERROR_RESPONSE, 'Preflight'];
    if (exchange.status !== 204) return [`a preflight answered ${exchange.status}`];
  } else {
    // An unknown route or method: only a documented error may answer it.
    pointer = errorResponseFor(exchange.status);
    if (!pointer || exchange.status < 400) {
      return [
        `status ${exchange.status} for an undocumented ${exchange.method} ${exchange.url.pathname}`,
      ];
    }
  }
  const { value: response, pointer: at } = resolve(
    pointer.reduce<unknown>((node, segment) => (node as Json)[segment], doc),
    pointer,
  );
  const problems: string[] = [];
  for (const [name, header] of Object.entries((response.headers as Json | undefined) ?? {})) {
    const { value: spec, pointer: headerAt } = resolve(header, [...at, 'headers', name]);
    const value = exchange.responseHeaders.get(name);
    if (value === null) {
      if (spec.required === true) problems.push(`response header ${name} missing`);
      continue;
    }
    const validate = validatorAt(parameterValues, [...headerAt, 'schema']);
    if (!validate(value)) {
      problems.push(
        `response header ${name}: ${JSON.stringify(value)} ${validate.errors?.[0]?.message}`,
      );
    }
  }
  const content = response.content as Json | undefined;
  const type = essence(exchange.responseHeaders.get('content-type'));
  const length = exchange.responseHeaders.get('content-length');
  const hasBody =
    exchange.method !== 'HEAD' &&
    exchange.status !== 204 &&
    exchange.status !== 304 &&
    (exchange.responseBody !== undefined
      ? exchange.responseBody.length > 0
      : length !== '0' && (length !== null || exchange.responseHeaders.has('transfer-encoding')));
  if (!hasBody) {
    if (content && exchange.method !== 'HEAD')
      problems.push('no response body, where one is documented');
    return problems;
  }
  if (!content) return [...problems, `a ${type} body where the document has none`];
  const key = type ? contentKey(content, type) : null;
  if (!key) return [...problems, `response media type ${type} is not documented`];
  // Only a body the document says is JSON is read as such: a file the CDN serves is the
  // uploader's bytes, whatever type they were stored with.
  if (key === 'application/json' && exchange.responseBody !== undefined) {
    const parsed = parseJson(exchange.responseBody);
    if (!parsed) return [...problems, 'the JSON answer does not parse'];
    const validate = validatorAt(bodies, [...at, 'content', key, 'schema']);
    problems.push(...schemaErrors(validate, parsed.value, 'response body'));
  }
  return problems;
}

/** Every way the exchange departs from the document; empty when it keeps to it. */
export function contractViolations(exchange: Exchange): string[] {
  const found = findOperation(exchange.server, exchange.method, exchange.url.pathname);
  const violations = responseProblems(exchange, found);
  if (!exchange.rawRequest && exchange.status < 400) {
    const refusedNothing = requestProblems(exchange, found);
    violations.push(
      ...refusedNothing.map((problem) => `accepted a request outside the document: ${problem}`),
    );
  }
  return violations;
}

// The origins of the running test services, and what each has seen go wrong.
const origins = new Map<string, { server: Server; violations: string[] }>();

/**
 * `FILEHOST_OPENAPI_COVERAGE=<file>`: each checked exchange's operation and status is
 * appended there, to see which parts of the document the tests reach.
 */
const COVERAGE_LOG = process.env.FILEHOST_OPENAPI_COVERAGE;

function report(exchange: Exchange): void {
  const watched = origins.get(exchange.url.origin);
  if (!watched) return;
  const violations = contractViolations(exchange);
  if (COVERAGE_LOG) {
    const found = findOperation(exchange.server, exchange.method, exchange.url.pathname);
    const operation = found?.operation ? `${exchange.method} ${found.path}` : 'undocumented';
    appendFileSync(COVERAGE_LOG, `${operation} ${exchange.status}\n`);
  }
  if (violations.length === 0) return;
  const message = `${exchange.method} ${exchange.url.pathname}${exchange.url.search} → ${exchange.status} breaks src/api/openapi.json:\n  ${violations.slice(0, 8).join('\n  ')}`;
  watched.violations.push(message);
  throw new AssertionError({ message });
}

/**
 * Starts checking every exchange with these origins. The returned function stops it, and
 * throws if any exchange broke the contract (even one whose error a caller swallowed).
 */
export function watchService(apiUrl: string, cdnUrl: string): () => void {
  installFetchCheck();
  const api = { server: 'api' as const, violations: [] };
  const cdn = { server: 'cdn' as const, violations: [] };
  origins.set(new URL(apiUrl).origin, api);
  origins.set(new URL(cdnUrl).origin, cdn);
  return () => {
    origins.delete(new URL(apiUrl).origin);
    origins.delete(new URL(cdnUrl).origin);
    const all = [...api.violations, ...cdn.violations];
    if (all.length > 0) throw new AssertionError({ message: all.join('\n') });
  };
}

/** The server (api, cdn) a URL goes to, if it is a watched test service's. */
export function watchedServer(url: string | URL): Server | null {
  return origins.get(new URL(url).origin)?.server ?? null;
}

let installed = false;

/**
 * `fetch` made to check what it sends to a watched service and what it gets back. The
 * request goes out untouched and the real answer comes back: nothing is answered for the
 * service. A JSON answer is read (from a clone) before the caller gets it, to check it.
 */
function installFetchCheck(): void {
  if (installed) return;
  installed = true;
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const server = origins.get(url.origin)?.server;
    if (!server) return realFetch(input, init);
    const requestHeaders = new Headers(input instanceof Request ? input.headers : undefined);
    for (const [name, value] of new Headers(init?.headers)) requestHeaders.set(name, value);
    const body = init?.body ?? (input instanceof Request ? input.body : null);
    const method = (
      init?.method ?? (input instanceof Request ? input.method : 'GET')
    ).toUpperCase();
    const response = await realFetch(input, init);
    const isJson = essence(response.headers.get('content-type')) === 'application/json';
    const responseBody = isJson && method !== 'HEAD' ? await response.clone().text() : undefined;
    report({
      server,
      method,
      url,
      requestHeaders,
      requestBody: body === null ? undefined : typeof body === 'string' ? body : true,
      ...(body instanceof FormData ? { implicitType: 'multipart/form-data' } : {}),
      status: response.status,
      responseHeaders: response.headers,
      responseBody,
    });
    return response;
  };
}

/** Checks the answer to a request written by hand (`rawHttp`, `rawExchange`). */
export function checkRawAnswer(
  baseUrl: string | URL,
  request: { method: string; path: string },
  answer: { status: number; headers: IncomingHttpHeaders | Record<string, unknown>; body: string },
): void {
  const server = watchedServer(baseUrl);
  if (!server) return;
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue;
    responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : String(value));
  }
  let url: URL;
  try {
    url = new URL(request.path, baseUrl);
  } catch {
    return;
  }
  const isJson = essence(responseHeaders.get('content-type')) === 'application/json';
  report({
    server,
    method: request.method.toUpperCase(),
    url,
    requestHeaders: new Headers(),
    requestBody: undefined,
    rawRequest: true,
    status: answer.status,
    responseHeaders,
    responseBody: isJson ? answer.body : undefined,
  });
}

/**
 * What is wrong with a webhook delivery the service made, against the document's
 * `webhooks` (the event named by the body's `type`): its headers and its body.
 */
export function webhookViolations(
  headers: IncomingHttpHeaders,
  body: string,
  method = 'POST',
): string[] {
  const parsed = parseJson(body);
  if (!parsed) return ['the delivery body is not JSON'];
  const type = (parsed.value as { type?: unknown }).type;
  const webhooks = doc.webhooks as Record<string, Json>;
  if (typeof type !== 'string' || !Object.hasOwn(webhooks, type)) {
    return [`no documented webhook for type ${JSON.stringify(type)}`];
  }
  const at = ['webhooks', type, method.toLowerCase()];
  const operation = (webhooks[type] as Json)[method.toLowerCase()] as Json | undefined;
  if (!operation) return [`a ${method} delivery, where ${type} is documented as POST`];
  const problems: string[] = [];
  (operation.parameters as Json[]).forEach((parameter, index) => {
    const name = parameter.name as string;
    const value = headers[name.toLowerCase()];
    if (value === undefined) {
      if (parameter.required === true) problems.push(`header ${name} missing`);
      return;
    }
    const validate = validatorAt(parameterValues, [...at, 'parameters', String(index), 'schema']);
    if (!validate(value)) problems.push(`header ${name}: ${validate.errors?.[0]?.message}`);
  });
  if (essence(headers['content-type']) !== 'application/json') {
    problems.push(`content-type ${headers['content-type']} is not application/json`);
  }
  const validate = validatorAt(bodies, [
    ...at,
    'requestBody',
    'content',
    'application/json',
    'schema',
  ]);
  problems.push(...schemaErrors(validate, parsed.value, `${type} body`));
  return problems;
}
