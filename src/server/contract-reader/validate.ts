import { createRequire } from 'node:module';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Ajv2020 as Ajv, AnySchema, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type addFormatsModule from 'ajv-formats';
import type { ApiErrorCode } from '../../api/errors.js';
import type * as Components from '../contract/components.js';
import { ServiceError } from '../ground/errors.js';
import {
  CONTRACT_SCHEMAS,
  type ContractParameter,
  type JsonSchema,
  namedSchema,
  resolved,
} from './contract.js';

/**
 * Checks values against the route schemas, as the generated OpenAPI 3.1 document holds
 * them (JSON Schema 2020-12; see `contract.ts`). Nothing is coerced, added or removed: a
 * value passes or is refused as sent. Ajv is loaded, and each schema compiled, the first
 * time a body is checked, not at start-up (loading Ajv alone costs the service's start-up
 * about a tenth).
 */
let loaded: Ajv | undefined;

function ajv(): Ajv {
  if (!loaded) {
    // Required here rather than imported, so that start-up does not load it; the server
    // package lists it (build-server-package.ts reads `require(` specifiers too).
    const require = createRequire(import.meta.url);
    const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const addFormats = require('ajv-formats') as typeof addFormatsModule.default;
    loaded = addFormats(
      new Ajv2020({
        strict: false,
        allErrors: false,
        coerceTypes: false,
        useDefaults: false,
        // Errors carry the refused value (`data`), for `Refusals`.
        verbose: true,
      }),
      ['uri', 'date-time'],
    );
    loaded.addSchema(CONTRACT_SCHEMAS as AnySchema);
  }
  return loaded;
}

type Schemas = typeof Components;
/**
 * The named schemas (`#/components/schemas/<name>`), by the name each is exported as, which
 * is its name in the document; but for `ErrorBody`, published as `Error` (an answer, never
 * a body to check).
 */
export type SchemaName = Exclude<
  { [K in keyof Schemas]: Schemas[K] extends TSchema ? K : never }[keyof Schemas],
  'ErrorBody'
>;

/** A JSON Schema of the service's own (not a component), with the type of what passes it. */
export type TypedSchema<T> = JsonSchema & { readonly __passes?: T };

const compiled = new WeakMap<object, ValidateFunction>();

/** A compiled check of a named schema, or of a schema of the service's own. */
export function validatorOf(schema: SchemaName | JsonSchema): ValidateFunction {
  // One object per name (`namedSchema`), so that each is compiled once.
  const key = typeof schema === 'string' ? namedSchema(schema) : schema;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv().compile(key);
    compiled.set(key, validate);
  }
  return validate;
}

/**
 * Fastify's check of a route's path parameters: each a string of its schema's `pattern`
 * (the ids), without Ajv. A parameter of another shape names nothing: `404 not_found`,
 * answered before any store sees it (a NUL byte, say, is not even a string PostgreSQL
 * will take).
 */
export function paramsValidator(schema: {
  readonly properties: Readonly<Record<string, JsonSchema>>;
}): (params: unknown) => true | { error: ServiceError } {
  const patterns = Object.entries(schema.properties).map(
    ([name, property]) =>
      [
        name,
        typeof property.pattern === 'string' ? new RegExp(property.pattern, 'u') : null,
      ] as const,
  );
  return (params) => {
    const values = (params ?? {}) as Record<string, unknown>;
    for (const [name, pattern] of patterns) {
      const value = values[name];
      if (typeof value !== 'string' || (pattern && !pattern.test(value))) {
        return { error: new ServiceError('not_found', 'No such id.') };
      }
    }
    return true;
  };
}

/**
 * Errors other than `400 invalid_request` for some refusals, by where and what:
 * `'/size minimum'` (the field's JSON pointer, a space, the schema keyword that failed). A
 * code, or a function of the Ajv error (its `data` is the refused value) answering the
 * error, or undefined for the usual one.
 */
export type Refusals = Readonly<
  Record<string, ApiErrorCode | ((error: ErrorObject) => ServiceError | undefined)>
>;

/** How `check` answers a fault beyond its code. */
export interface CheckOptions {
  /**
   * A top-level array field whose entries are each a request of their own (a batch's
   * `uploads`, `files`): a fault inside an entry carries its `index`, as the batch
   * routes document.
   */
  readonly indexed?: string;
}

/**
 * The value, typed by its schema (a named one, or one of the service's own); or the
 * documented error for its first fault: `400 invalid_request` naming the field, unless
 * `refusals` names another code for it.
 */
export function check<K extends SchemaName>(
  schema: K,
  value: unknown,
  refusals?: Refusals,
  options?: CheckOptions,
): Static<Schemas[K]>;
export function check<T>(
  schema: TypedSchema<T>,
  value: unknown,
  refusals?: Refusals,
  options?: CheckOptions,
): T;
export function check(
  schema: SchemaName | JsonSchema,
  value: unknown,
  refusals: Refusals = {},
  options: CheckOptions = {},
): unknown {
  const validate = validatorOf(schema);
  if (validate(value)) return value;
  const error = validate.errors?.[0];
  const answer = refusal(error, refusals);
  const index = options.indexed === undefined ? null : entryIndex(error, options.indexed);
  if (index === null) throw answer;
  throw new ServiceError(answer.code, answer.message, {
    extra: { ...answer.extra, index },
    headers: answer.headers,
  });
}

/** The entry of `/<field>/<n>…` an error is inside, or null for one outside every entry. */
function entryIndex(error: ErrorObject | undefined, field: string): number | null {
  const match = error && /^\/([^/]+)\/(\d+)(?:\/|$)/.exec(error.instancePath);
  return match && match[1] === field ? Number(match[2]) : null;
}

/** The schema of a route's query string, made from its declared query parameters. */
export function querySchema<T>(declared: readonly ContractParameter[]): TypedSchema<T> {
  return {
    type: 'object',
    properties: Object.fromEntries(declared.map(({ name, schema }) => [name, resolved(schema)])),
    required: declared.filter(({ required }) => required).map(({ name }) => name),
  };
}

/**
 * A query string (Fastify's: a string per name, an array for a name repeated) checked
 * against `querySchema`'s schema: an empty value is an absent one, a whole decimal number
 * is read as one where an integer is declared (a query string has no numbers of its own),
 * anything else is checked as sent, so `?limit=1.5` or a repeated name is refused. Names
 * not declared are ignored.
 */
export function checkQuery<T>(schema: TypedSchema<T>, query: unknown): T {
  const given = (query ?? {}) as Record<string, unknown>;
  const value: Record<string, unknown> = {};
  const properties = schema.properties as Record<string, JsonSchema>;
  for (const [name, property] of Object.entries(properties)) {
    const raw = given[name];
    if (raw === undefined || raw === '') continue;
    value[name] =
      property.type === 'integer' && typeof raw === 'string' && /^-?\d{1,16}$/.test(raw)
        ? Number(raw)
        : raw;
  }
  return check(schema, value);
}

/** The service's error for an Ajv error (Fastify's validation answers with these too). */
export function refusal(error: ErrorObject | undefined, refusals: Refusals = {}): ServiceError {
  if (!error) return new ServiceError('invalid_request');
  const special = refusals[`${error.instancePath} ${error.keyword}`];
  const chosen = typeof special === 'function' ? special(error) : special;
  if (chosen) return typeof chosen === 'string' ? new ServiceError(chosen) : chosen;
  return new ServiceError('invalid_request', describe(error));
}

/** `files[2].size`, from `/files/2/size`; the body itself is `The body`. */
export function fieldName(pointer: string): string {
  if (pointer === '') return 'The body';
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('');
}

const TYPE_WORDS: Record<string, string> = {
  object: 'a JSON object',
  array: 'an array',
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

/** A sentence for one Ajv error, naming the field as the client spelled it. */
function describe(error: ErrorObject): string {
  const field = fieldName(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const types = String(params.type).split(',');
      return `${field} must be ${types.map((type) => TYPE_WORDS[type] ?? type).join(' or ')}.`;
    }
    case 'required':
      return `${fieldName(`${error.instancePath}/${String(params.missingProperty)}`)} is required.`;
    case 'additionalProperties':
      return `${field} has an unknown field, ${String(params.additionalProperty)}.`;
    case 'enum':
      return `${field} must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}.`;
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum':
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      return `${field} ${error.message}.`;
    default:
      return `${field} is not of the documented form (${error.message}).`;
  }
}
