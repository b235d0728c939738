import type { TSchema } from '@sinclair/typebox';

/**
 * The shape of a route declaration (paths.ts): OpenAPI's own path item and operation
 * objects, whose `schema`s are TypeBox schemas. Kept loose where OpenAPI is (descriptions,
 * examples, responses by `$ref`), exact where the service reads it (parameters, bodies).
 */

export type Method = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';

/** A parameter spelled in place, or a `$ref` to one of `components.parameters`. */
export type Parameter =
  | {
      readonly name: string;
      readonly in: 'path' | 'query' | 'header';
      readonly required: boolean;
      readonly schema: TSchema;
      readonly description?: string;
      readonly [extension: `x-${string}`]: unknown;
    }
  | { readonly $ref: string };

export interface Operation {
  readonly operationId: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: {
    readonly required: boolean;
    readonly content: Readonly<Record<string, { readonly schema: TSchema }>>;
  };
  readonly responses: Readonly<Record<string, unknown>>;
  readonly [field: string]: unknown;
}

export interface PathDeclaration {
  /** An OpenAPI path template (`/v1/files/{id}`). */
  readonly path: string;
  /** Paths served by another host (the CDN) name it; the API's paths name none. */
  readonly servers?: readonly unknown[];
  readonly parameters?: readonly Parameter[];
  /** The CORS preflight: its `operationId` (the usual answer), or the whole operation. */
  readonly preflight?: string | Operation;
  readonly operations: Readonly<Partial<Record<Method, Operation>>>;
}

/**
 * A path template from a function of the client's route table: `pathOf(routes.file, 'id')`
 * is `/v1/files/{id}`. The client and the service so share one spelling of each path.
 */
export function pathOf<A extends unknown[]>(
  route: (...args: A) => string,
  ...names: { [K in keyof A]: string }
): string {
  const placeholders = names.map((name) => `{${name}}`) as unknown as A;
  return decodeURIComponent(route(...placeholders));
}
