import * as components from './components.js';
import { nameOf } from './kit.js';

/**
 * The client's wire types, written from the route declarations (`npm run openapi` writes
 * them to src/api/wire.generated.ts beside the OpenAPI document). Plain TypeScript, so the
 * published packages carry them without TypeBox; src/api/types.ts and src/api/events.ts
 * re-export them under the names the client uses. Each named schema in components.ts
 * becomes one exported type, named as components.ts exports it; a named schema that is a
 * bare string, number or boolean (`Id`, `Timestamp`) is written in place, as a reader would.
 * test/server/contract/wire-types.test.ts checks each type is its schema's `Static`.
 */

/** Where the generated types are kept, from the repository's root. */
export const WIRE_TYPES_FILE = 'src/api/wire.generated.ts';

/** A schema as its JSON keys read (TypeBox's own keys ride on symbols and are not seen). */
type Schema = { [key: string]: unknown };

/**
 * Names the folder where the declarations lived when this file was first generated (now
 * src/server/contract/): the generated files are kept byte for byte, as the document is.
 */
const HEADER = `/**
 * Generated from the route schemas in src/server/api/schemas/components.ts by
 * \`npm run openapi\` (src/server/api/schemas/wire-types.ts): do not edit. The shapes on the
 * wire; src/api/types.ts and src/api/events.ts export them under the client's names.
 */
`;

/** The generated file's text. */
export function wireTypesText(): string {
  const out: string[] = [HEADER];
  for (const [name, schema] of Object.entries(components) as [string, Schema][]) {
    if (!nameOf(schema) || isPrimitive(schema)) continue;
    out.push(`${doc(schema.description, '')}export ${declaration(name, schema)}\n`);
  }
  return out.join('\n');
}

/**
 * The TypeScript name of a named schema: its export from components.ts, which is its
 * component name but for `ErrorBody` (the component `Error`, a name TypeScript keeps for
 * the global class).
 */
const EXPORT_NAMES = new Map(
  Object.entries(components).flatMap(([key, schema]) => {
    const name = nameOf(schema);
    return name ? [[name, key] as const] : [];
  }),
);

function exportName(name: string): string {
  return EXPORT_NAMES.get(name) ?? name;
}

function declaration(name: string, schema: Schema): string {
  if (schema.type === 'object' && isPlainObject(schema)) {
    return `interface ${name} ${objectType(schema, '')}`;
  }
  return `type ${name} = ${typeOf(schema, '', schema)};`;
}

/** A string, number or boolean with nothing that narrows its type (only its checks). */
function isPrimitive(schema: Schema): boolean {
  return (
    ['string', 'integer', 'number', 'boolean'].includes(schema.type as string) &&
    schema.enum === undefined &&
    schema.const === undefined
  );
}

/** An object with properties and no map of other keys. */
function isPlainObject(schema: Schema): boolean {
  return (
    schema.properties !== undefined &&
    (schema.additionalProperties === undefined || schema.additionalProperties === false)
  );
}

/** The TypeScript type of a schema; `indent`: the indentation of the line it starts on. */
function typeOf(schema: Schema, indent: string, self?: Schema): string {
  const name = schema === self ? undefined : nameOf(schema);
  if (name && !isPrimitive(schema)) return exportName(name);
  if (schema.const !== undefined) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  if (Array.isArray(schema.oneOf)) return exclusiveUnion(schema.oneOf as Schema[], indent);
  if (Array.isArray(schema.anyOf)) {
    return (schema.anyOf as Schema[]).map((item) => typeOf(item, indent)).join(' | ');
  }
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as Schema[]).map((item) => typeOf(item, indent));
    if (schema.properties !== undefined) parts.push(objectType(schema, indent));
    return parts.join(' & ');
  }
  if (Array.isArray(schema.type)) {
    return (schema.type as string[]).map((type) => typeOf({ ...schema, type }, indent)).join(' | ');
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = typeOf(schema.items as Schema, indent);
      return /[|&]/.test(item) ? `(${item})[]` : `${item}[]`;
    }
    case 'object':
      if (schema.properties !== undefined) return objectType(schema, indent);
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        return `Record<string, ${typeOf(schema.additionalProperties as Schema, indent)}>`;
      }
      return 'Record<string, unknown>';
    default:
      return 'unknown';
  }
}

/**
 * `oneOf` of closed objects: each branch also says the other branches' keys are absent
 * (`error?: undefined`), which is what `additionalProperties: false` means, and what lets a
 * reader ask `result.error` of any branch.
 */
function exclusiveUnion(branches: Schema[], indent: string): string {
  const closed = branches.every(
    (branch) =>
      branch.type === 'object' && !nameOf(branch) && branch.additionalProperties === false,
  );
  if (!closed) return branches.map((branch) => typeOf(branch, indent)).join(' | ');
  const keys = branches.map((branch) => Object.keys(branch.properties as Schema));
  return branches
    .map((branch, index) => {
      const absent = keys.flatMap((own, other) => (other === index ? [] : own));
      return objectType(branch, indent, absent);
    })
    .join(' | ');
}

function objectType(schema: Schema, indent: string, absent: string[] = []): string {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [key, value] of Object.entries(schema.properties as Record<string, Schema>)) {
    const described = nameOf(value) && !isPrimitive(value) ? undefined : value.description;
    const optional = required.has(key) ? '' : '?';
    lines.push(`${doc(described, inner)}${inner}${key}${optional}: ${typeOf(value, inner)};`);
  }
  for (const key of absent) {
    if (!(key in (schema.properties as Schema))) lines.push(`${inner}${key}?: undefined;`);
  }
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object') {
    lines.push(`${inner}[key: string]: ${typeOf(extra as Schema, inner)};`);
  }
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** A literal type, quoted as the repository quotes strings. */
function literal(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** A JSDoc comment of a description, at `indent`. */
function doc(description: unknown, indent: string): string {
  if (typeof description !== 'string' || description === '') return '';
  const text = description.replaceAll('*/', '*\\/');
  return `${indent}/** ${text.split('\n').join(`\n${indent} * `)} */\n`;
}
