import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { Method, Operation, Parameter, PathDeclaration } from './declare.js';
import { fastifyPath } from './declare.js';
import { parameters as sharedParameters } from './document.js';
import { PATHS } from './paths.js';

type Declared = (typeof PATHS)[number];
type OperationsOf<P> = P extends { operations: infer O } ? O[keyof O] : never;
/** Every operation the declarations name. */
export type OperationId =
  OperationsOf<Declared> extends infer O
    ? O extends { operationId: infer I extends string }
      ? I
      : never
    : never;

/**
 * Operations declared for the document but not routed by the API app: the CDN serves its
 * own paths (cdn/cdn.ts), and the local-disk store's part PUTs are routed only where that
 * store is used (routes/local-part.ts).
 */
export const ROUTED_ELSEWHERE = [
  'serveFile',
  'headFile',
  'serveFileNamed',
  'headFileNamed',
  'putPart',
  'putPartAtItsUrl',
] as const satisfies readonly OperationId[];

/** The operations the API app routes, each by a handler of its own (app.ts). */
export type ApiOperationId = Exclude<OperationId, (typeof ROUTED_ELSEWHERE)[number]>;

/** One route as Fastify takes it, from its declaration. */
export interface RouteOf<Id extends string = OperationId> {
  operationId: Id;
  method: Uppercase<Method>;
  /** Fastify's spelling (`/v1/files/:id`). */
  url: string;
  /** What Fastify validates before the handler runs: the path's parameters. */
  schema: { params?: TObject };
}

function resolve(parameter: Parameter): Exclude<Parameter, { $ref: string }> {
  if (!('$ref' in parameter)) return parameter;
  const name = parameter.$ref.replace('#/components/parameters/', '');
  const found = sharedParameters[name];
  if (!found || '$ref' in found) throw new Error(`no parameter ${parameter.$ref}`);
  return found;
}

/** The schema of a route's path parameters, from the path's and the operation's own. */
function paramsOf(item: PathDeclaration, operation: Operation): TObject | undefined {
  const properties: Record<string, TSchema> = {};
  for (const parameter of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
    const { name, in: where, schema } = resolve(parameter);
    if (where === 'path') properties[name] = schema;
  }
  return Object.keys(properties).length > 0 ? Type.Object(properties) : undefined;
}

/** Every declared operation, as Fastify routes it. */
export function declaredRoutes(): RouteOf[] {
  const found: RouteOf[] = [];
  for (const item of PATHS as readonly PathDeclaration[]) {
    for (const [method, operation] of Object.entries(item.operations) as [Method, Operation][]) {
      const params = paramsOf(item, operation);
      found.push({
        operationId: operation.operationId as OperationId,
        method: method.toUpperCase() as Uppercase<Method>,
        url: fastifyPath(item.path),
        schema: params ? { params } : {},
      });
    }
  }
  return found;
}

const elsewhere: ReadonlySet<string> = new Set(ROUTED_ELSEWHERE);

/** The routes of the API app (`ROUTED_ELSEWHERE` left out). */
export function apiRoutes(): RouteOf<ApiOperationId>[] {
  return declaredRoutes().filter(
    (route): route is RouteOf<ApiOperationId> => !elsewhere.has(route.operationId),
  );
}

/** One declared route, by its operation (for the routes registered elsewhere). */
export function declaredRoute(operationId: OperationId): RouteOf {
  const route = declaredRoutes().find((each) => each.operationId === operationId);
  if (!route) throw new Error(`no operation ${operationId}`);
  return route;
}
