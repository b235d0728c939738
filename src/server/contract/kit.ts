import { type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

/**
 * The few builders the route schemas need beyond TypeBox's own: each answers exactly the
 * JSON Schema the OpenAPI document spells (`enum`, `type: [T, "null"]`, `oneOf`,
 * `additionalProperties` as a schema), with the static type that schema means.
 */

/** Marks a schema as a named component: `#/components/schemas/<name>` wherever it is used. */
export const SCHEMA_NAME = Symbol('schema name');

type Named = { [SCHEMA_NAME]?: string };

/**
 * Names a schema. The name rides on a symbol key, which neither JSON nor Ajv sees but
 * spreads keep (`Type.Optional` copies its schema): the document generator puts a `$ref`
 * wherever a named schema is used, and the component itself once.
 */
export function named<T extends TSchema>(name: string, schema: T): T {
  (schema as Named)[SCHEMA_NAME] = name;
  return schema;
}

export function nameOf(schema: object): string | undefined {
  return (schema as Named)[SCHEMA_NAME];
}

/** A copy of a schema that is not the named component (so a `$ref` would be wrong). */
function unnamed(schema: TSchema): Record<string, unknown> {
  const { [SCHEMA_NAME]: _name, ...rest } = schema as TSchema & Named;
  return rest;
}

type Options = Record<string, unknown>;

/** `{ "type": "string", "enum": [...] }`. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Options = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: values, ...options });
}

/** `{ "type": [T, "null"], ... }`: the schema, or null. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const plain = unnamed(schema);
  return Type.Unsafe<Static<T> | null>({ ...plain, type: [plain.type, 'null'] });
}

/** `{ "oneOf": [...] }`: exactly one of the schemas. */
export function OneOf<T extends TSchema[]>(
  schemas: [...T],
  options: Options = {},
): TUnsafe<Static<T[number]>> {
  return Type.Unsafe<Static<T[number]>>({ oneOf: schemas, ...options });
}

/** `{ "type": "object", "additionalProperties": V }`: a string-keyed map. */
export function Dict<V extends TSchema>(
  values: V,
  options: Options = {},
): TUnsafe<Record<string, Static<V>>> {
  return Type.Unsafe<Record<string, Static<V>>>({
    type: 'object',
    additionalProperties: values,
    ...options,
  });
}

/** JSON Schema TypeBox has no builder for, spelled as is; its static type given by hand. */
export function Raw<T = unknown>(schema: Options): TUnsafe<T> {
  return Type.Unsafe<T>(schema);
}
