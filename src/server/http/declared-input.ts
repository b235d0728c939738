import {
  type JsonSchema,
  namedSchema,
  type RouteOf,
  resolved,
} from '../contract-reader/contract.js';
import { type CheckOptions, check, checkQuery, querySchema } from '../contract-reader/validate.js';

/**
 * A route's request checked against its declaration (the generated document's): its JSON
 * body and its query, each answered as the value that passed, or the documented error
 * (`validate.ts`). Built once per route as the app starts; Ajv compiles a schema on its
 * first check.
 */

/** A schema of the document as a check takes it: a named schema by its one object. */
function checkable(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  return typeof ref === 'string'
    ? namedSchema(ref.slice(ref.lastIndexOf('/') + 1))
    : resolved(schema);
}

/**
 * The check of a route's JSON body: absent is `undefined` where the body is optional; a
 * fault in an entry of `indexed` (a batch's array field) carries its `index`. Null for a
 * route that declares no JSON body.
 */
export function jsonBodyCheck(
  route: RouteOf<string>,
  options: CheckOptions = {},
): ((value: unknown) => unknown) | null {
  const declared = route.body.content['application/json'];
  if (!declared) return null;
  const schema = checkable(declared);
  const { required } = route.body;
  return (value) =>
    value === undefined && !required ? undefined : check(schema, value, {}, options);
}

/**
 * The check of a route's query string, from its declared query parameters (Fastify's
 * query: a string per name; see `checkQuery`). Names not declared are ignored.
 */
export function queryCheck(route: RouteOf<string>): (query: unknown) => Record<string, unknown> {
  const declared = route.parameters.filter((parameter) => parameter.in === 'query');
  // A route that declares no query reads none: nothing to check (nor Ajv to load for it).
  if (declared.length === 0) return () => ({});
  const schema = querySchema<Record<string, unknown>>(declared);
  return (query) => checkQuery(schema, query);
}

function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  return (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
}

/**
 * A batch as a route declares it: an object whose `field` is an array of entries, each a
 * request of its own (a batch sign's `files`, a batch upload's). The batch's own form (the
 * array and its length) is checked whole; each entry is then checked on its own by the
 * route's rules, so that its fault keeps the code a single request would answer, with its
 * `index`. `entry` checks one against the declared entry schema.
 */
export interface DeclaredBatch {
  form(value: unknown): { readonly entries: readonly unknown[] };
  entry<T>(value: unknown): T;
}

/**
 * The batch `field` of a route's body of `mediaType`: the body's schema, or the branch of a
 * union (`anyOf`) that has the field; a multipart field holding JSON (`contentSchema`) is
 * its JSON. Throws when the declaration has no such batch (a route table that no longer
 * matches the document fails as the app is built, not on a request).
 */
export function declaredBatch(
  route: RouteOf<string>,
  mediaType: string,
  field: string,
): DeclaredBatch {
  const declared = route.body.content[mediaType];
  const branches = declared
    ? (Array.isArray(declared.anyOf) ? (declared.anyOf as JsonSchema[]) : [declared]).map(
        (branch) => resolved(branch),
      )
    : [];
  const branch = branches.find((each) => propertiesOf(each)[field] !== undefined);
  const property = branch && propertiesOf(branch)[field];
  // A multipart field holding JSON declares that JSON as its `contentSchema`.
  const inField = property?.contentSchema !== undefined;
  const array = inField ? (property?.contentSchema as JsonSchema) : property;
  if (!branch || !array || array.type !== 'array' || typeof array.items !== 'object') {
    throw new Error(`${route.operationId} declares no batch ${field} in ${mediaType}`);
  }
  const { items, ...length } = array;
  // A JSON field of a multipart body is checked as the one field it is, so that a fault
  // names it as a body's would (`files must be an array.`).
  const form: JsonSchema = inField
    ? { type: 'object', properties: { [field]: length }, required: [field] }
    : { ...branch, properties: { ...propertiesOf(branch), [field]: length } };
  const entry = checkable(items as JsonSchema);
  return {
    form: (value) => {
      const checked = check(form, inField ? { [field]: value } : value) as Record<string, unknown>;
      return { entries: checked[field] as unknown[] };
    },
    entry: <T>(value: unknown) => check(entry, value) as T,
  };
}
