import document from '../../api/openapi.json' with { type: 'json' };
import type { Method } from '../contract/declare.js';
import type { CdnOperationId, OperationId } from '../contract/operations.js';

/**
 * The contract as the running service reads it: the generated document
 * (`src/api/openapi.json`, which `npm run openapi` makes from the declarations in this
 * folder), not the declarations themselves. The declarations are TypeBox, whose builders
 * are about 200 modules, a share of start-up spent to give back the same JSON this file
 * holds (test/bench/README.md, "Moved from the code"). So the routes, their path checks and
 * the bodies' checks (`validate.ts`) come from the generated document, and the declarations
 * give the handlers their types and the document its content; a test fails while the
 * document is stale, and another if start-up loads TypeBox.
 */

/** A JSON Schema as the document holds it (its `$ref`s point into the document). */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** The document's id for Ajv: `<CONTRACT_ID>#/components/schemas/<name>` is a named schema. */
export const CONTRACT_ID = 'filehost:openapi.json';

/** What Ajv is given once, so that every `$ref` of the document resolves. */
export const CONTRACT_SCHEMAS: JsonSchema = {
  $id: CONTRACT_ID,
  components: { schemas: document.components.schemas },
};

/** One of the document's components (`#/components/<kind>/<name>`); an error if none. */
function component<T>(kind: 'schemas' | 'parameters', name: string): T {
  const found = (document.components[kind] as Record<string, unknown>)[name] as T | undefined;
  if (!found) throw new Error(`no component ${kind}/${name}`);
  return found;
}

/** The component a `$ref` names: `#/components/schemas/Id` is `Id`. */
const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

const named = new Map<string, JsonSchema>();

/**
 * A schema that is the named component `name` (`#/components/schemas/<name>`): the same
 * object for the same name.
 */
export function namedSchema(name: string): JsonSchema {
  let schema = named.get(name);
  if (!schema) {
    component('schemas', name);
    schema = { $ref: `${CONTRACT_ID}#/components/schemas/${name}` };
    named.set(name, schema);
  }
  return schema;
}

/**
 * A schema of the document as it is to be checked on its own: a `$ref` to a named schema
 * is followed (its properties are what the path and query checks read), and the `$ref`s
 * left inside point at the document by its id.
 */
export function resolved(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref === 'string') return resolved(component<JsonSchema>('schemas', refName(ref)));
  return anchored(schema) as JsonSchema;
}

/** `#/…` references made absolute (`CONTRACT_ID#/…`), so that they resolve from anywhere. */
function anchored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(anchored);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' && item.startsWith('#/')
        ? `${CONTRACT_ID}${item}`
        : anchored(item),
    ]),
  );
}

/** A parameter of the document (`$ref`s to `components.parameters` followed). */
export interface ContractParameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema: JsonSchema;
  /** A path parameter that takes the rest of the path, `/` included (the CDN's name). */
  readonly 'x-rest-of-path'?: boolean;
}

type ParameterRef = ContractParameter | { readonly $ref: string };

/** One of `components.parameters`, by name (`Cursor`, `Limit`, `FileId`…). */
export function sharedParameter(name: string): ContractParameter {
  return component('parameters', name);
}

function parameterOf(parameter: ParameterRef): ContractParameter {
  return '$ref' in parameter ? sharedParameter(refName(parameter.$ref)) : parameter;
}

/** One route as Fastify takes it, from the document. */
export interface RouteOf<Id extends string = OperationId> {
  operationId: Id;
  method: Uppercase<Method>;
  /** Fastify's spelling (`/v1/files/:id`; the rest of the path is `*`). */
  url: string;
  /** What Fastify validates before the handler runs: the path's parameters. */
  schema: { params?: { type: 'object'; properties: Record<string, JsonSchema> } };
  /** The operation's parameters (its path's, then its own). */
  parameters: readonly ContractParameter[];
  /** A path served on another origin (the CDN) names its servers. */
  elsewhere: boolean;
  /** The request body's schema by media type (none: no body), and whether one is required. */
  body: { readonly content: Readonly<Record<string, JsonSchema>>; readonly required: boolean };
}

interface DeclaredOperation {
  readonly operationId: string;
  readonly parameters?: readonly ParameterRef[];
  readonly requestBody?: {
    readonly required?: boolean;
    readonly content: Readonly<Record<string, { readonly schema: JsonSchema }>>;
  };
}

const METHODS: readonly Method[] = ['get', 'head', 'post', 'put', 'patch', 'delete'];

interface PathItem {
  readonly servers?: readonly unknown[];
  readonly parameters?: readonly ParameterRef[];
  readonly [method: string]: unknown;
}

/**
 * Fastify's spelling of a path template: `/v1/files/{id}` is `/v1/files/:id`, and a
 * parameter that takes the rest of the path (`x-rest-of-path`, which a template cannot
 * say) is Fastify's wildcard, `*`.
 */
export function fastifyPath(path: string, parameters: readonly ContractParameter[] = []): string {
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) =>
    parameters.some((each) => each.name === name && each['x-rest-of-path']) ? '*' : `:${name}`,
  );
}

/**
 * Every operation of the document (its preflights aside), as Fastify routes it; `paths`:
 * the document's own, or path items of the same form (a test's own route).
 */
export function declaredRoutes(
  paths: Readonly<Record<string, unknown>> = document.paths,
): RouteOf[] {
  const found: RouteOf[] = [];
  for (const [path, item] of Object.entries(paths as Record<string, PathItem>)) {
    for (const method of METHODS) {
      const operation = item[method] as DeclaredOperation | undefined;
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(
        parameterOf,
      );
      const properties: Record<string, JsonSchema> = {};
      for (const parameter of parameters) {
        if (parameter.in === 'path' && !parameter['x-rest-of-path']) {
          properties[parameter.name] = resolved(parameter.schema);
        }
      }
      found.push({
        operationId: operation.operationId as OperationId,
        method: method.toUpperCase() as Uppercase<Method>,
        url: fastifyPath(path, parameters),
        schema:
          Object.keys(properties).length > 0 ? { params: { type: 'object', properties } } : {},
        parameters,
        elsewhere: item.servers !== undefined,
        body: {
          content: Object.fromEntries(
            Object.entries(operation.requestBody?.content ?? {}).map(([type, { schema }]) => [
              type,
              schema,
            ]),
          ),
          required: operation.requestBody?.required === true,
        },
      });
    }
  }
  return found;
}

/** One route, by its operation. */
export function declaredRoute<Id extends OperationId>(operationId: Id): RouteOf<Id> {
  const route = declaredRoutes().find((each) => each.operationId === operationId);
  if (!route) throw new Error(`no operation ${operationId}`);
  return route as RouteOf<Id>;
}

/**
 * The local-disk store's part PUTs: routed by the API app only where that store is used
 * (routes/local-part.ts); at scale parts go to S3's own URLs. The document cannot say this
 * (it describes both deployments), so it is said here.
 */
export const LOCAL_PART_OPERATIONS = [
  'putPart',
  'putPartAtItsUrl',
] as const satisfies readonly OperationId[];

type LocalPartOperationId = (typeof LOCAL_PART_OPERATIONS)[number];

/**
 * tus 1.0 (`/v1/tus`): routed by tus/tus-routes.ts, which speaks tus's own headers and raw
 * bodies (a PATCH is `application/offset+octet-stream`) and puts `Tus-Resumable` on every
 * answer, errors included; the route table's JSON reading has nothing to give them.
 */
export const TUS_OPERATIONS = [
  'tusCreate',
  'tusHead',
  'tusPatch',
  'tusOverride',
  'tusTerminate',
] as const satisfies readonly OperationId[];

type TusOperationId = (typeof TUS_OPERATIONS)[number];

/**
 * The health paths: declared with both origins as their servers, so the CDN routes them
 * (cdnRoutes) and the API app does too.
 */
export const BOTH_ORIGINS_OPERATIONS = [
  'healthz',
  'readyz',
] as const satisfies readonly CdnOperationId[];

type BothOriginsOperationId = (typeof BOTH_ORIGINS_OPERATIONS)[number];

/** The operations the API app routes on every deployment, each by a handler of its own. */
export type ApiOperationId = Exclude<
  OperationId,
  Exclude<CdnOperationId, BothOriginsOperationId> | LocalPartOperationId | TusOperationId
>;

const routedApart: ReadonlySet<string> = new Set([...LOCAL_PART_OPERATIONS, ...TUS_OPERATIONS]);
const bothOrigins: ReadonlySet<string> = new Set(BOTH_ORIGINS_OPERATIONS);

/** The routes of the API app (the CDN's own, the local store's parts and tus left out). */
export function apiRoutes(): RouteOf<ApiOperationId>[] {
  return declaredRoutes().filter(
    (route): route is RouteOf<ApiOperationId> =>
      (!route.elsewhere || bothOrigins.has(route.operationId)) &&
      !routedApart.has(route.operationId),
  );
}

/** The routes of the CDN app: the paths that name the CDN's origin as their server. */
export function cdnRoutes(): RouteOf<CdnOperationId>[] {
  return declaredRoutes().filter((route): route is RouteOf<CdnOperationId> => route.elsewhere);
}

/** What Fastify is given of a route: its method, URL and path-parameter check. */
export function fastifyRoute({ method, url, schema }: RouteOf<string>): {
  method: Uppercase<Method>;
  url: string;
  schema: RouteOf['schema'];
} {
  return { method, url, schema };
}
