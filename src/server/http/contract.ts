import document from '../../api/openapi.json' with { type: 'json' };
import type { Method } from '../contract/declare.js';
import { fastifyPath } from '../contract/declare.js';
import { type ApiOperationId, type OperationId, ROUTED_ELSEWHERE } from '../contract/operations.js';

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
  /** Fastify's spelling (`/v1/files/:id`). */
  url: string;
  /** What Fastify validates before the handler runs: the path's parameters. */
  schema: { params?: { type: 'object'; properties: Record<string, JsonSchema> } };
}

const METHODS: readonly Method[] = ['get', 'head', 'post', 'put', 'delete'];

interface PathItem {
  readonly parameters?: readonly ParameterRef[];
  readonly [method: string]: unknown;
}

/** Every operation of the document (its preflights aside), as Fastify routes it. */
export function declaredRoutes(): RouteOf[] {
  const found: RouteOf[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, PathItem>)) {
    for (const method of METHODS) {
      const operation = item[method] as
        | { operationId: string; parameters?: readonly ParameterRef[] }
        | undefined;
      if (!operation) continue;
      const properties: Record<string, JsonSchema> = {};
      for (const each of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
        const parameter = parameterOf(each);
        if (parameter.in === 'path') properties[parameter.name] = resolved(parameter.schema);
      }
      found.push({
        operationId: operation.operationId as OperationId,
        method: method.toUpperCase() as Uppercase<Method>,
        url: fastifyPath(path),
        schema:
          Object.keys(properties).length > 0 ? { params: { type: 'object', properties } } : {},
      });
    }
  }
  return found;
}

/** One route, by its operation (for the routes registered outside the API app). */
export function declaredRoute(operationId: OperationId): RouteOf {
  const route = declaredRoutes().find((each) => each.operationId === operationId);
  if (!route) throw new Error(`no operation ${operationId}`);
  return route;
}

const elsewhere: ReadonlySet<string> = new Set(ROUTED_ELSEWHERE);

/** The routes of the API app (`ROUTED_ELSEWHERE` left out). */
export function apiRoutes(): RouteOf<ApiOperationId>[] {
  return declaredRoutes().filter(
    (route): route is RouteOf<ApiOperationId> => !elsewhere.has(route.operationId),
  );
}
