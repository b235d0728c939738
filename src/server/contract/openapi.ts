import * as components from './components.js';
import type { PathDeclaration } from './declare.js';
import * as common from './document.js';
import { nameOf } from './kit.js';
import { PATHS } from './paths.js';

/** JSON as the document holds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const PREFLIGHT_RESPONSE = { $ref: '#/components/responses/Preflight' };

/**
 * The OpenAPI 3.1 document, made from the route declarations: every named schema becomes
 * `#/components/schemas/<name>`, and a `$ref` to it wherever it is used. What
 * src/api/openapi.json holds (`npm run openapi`), and, with this deployment's servers,
 * what `GET /v1/openapi.json` answers.
 */
export function buildOpenApiDocument(): { [key: string]: Json } {
  const schemas: Record<string, Json> = {};
  for (const schema of Object.values(components)) {
    const name = nameOf(schema);
    if (name) schemas[name] = toJson(schema, schema);
  }
  const paths: Record<string, Json> = {};
  for (const item of PATHS as readonly PathDeclaration[]) paths[item.path] = pathItemJson(item);
  const responses = toJson(common.responses) as Record<string, Json>;
  for (const response of [
    ...Object.values(paths).flatMap((item) => responsesOf(item as Record<string, Json>)),
    ...Object.values(responses),
  ]) {
    withRequestId(response as Record<string, Json>);
  }
  return toJson({
    // The folder this names is where the declarations lived when the document was first
    // published; they moved to src/server/contract/, but the document is kept byte for byte
    // (a published file's every change is a release note), so its text stays as it was.
    'x-generated':
      'Generated from the route schemas in src/server/api/schemas/ by `npm run openapi`: do not edit.',
    openapi: '3.1.0',
    info: common.info,
    servers: common.servers,
    security: common.security,
    tags: common.tags,
    paths,
    webhooks: common.webhooks,
    components: {
      securitySchemes: common.securitySchemes,
      schemas,
      parameters: common.parameters,
      headers: common.headers,
      responses,
    },
  }) as { [key: string]: Json };
}

/** A path's declaration as the document's path item (`paths[declaration.path]`). */
export function pathItemJson(declaration: PathDeclaration): Json {
  const { path: _path, preflight, operations, ...fields } = declaration;
  const entry: Record<string, unknown> = { ...fields, ...operations };
  if (preflight !== undefined) {
    entry.options =
      typeof preflight === 'string'
        ? {
            operationId: preflight,
            tags: ['CORS'],
            summary: 'CORS preflight',
            security: [],
            responses: { '204': PREFLIGHT_RESPONSE },
          }
        : preflight;
  }
  return toJson(entry);
}

/** Every answer of the service carries `X-Request-Id` (decisions.md, "Operating the service"). */
const REQUEST_ID_HEADER = { $ref: '#/components/headers/RequestId' };

/** The responses a path item's operations declare in place (a `$ref` is declared where it points). */
function responsesOf(item: Record<string, Json>): Json[] {
  return Object.values(item).flatMap((operation) => {
    const responses = (operation as { responses?: Record<string, Json> } | null)?.responses;
    return responses ? Object.values(responses) : [];
  });
}

function withRequestId(response: Record<string, Json>): void {
  if ('$ref' in response) return;
  response.headers = { 'X-Request-Id': REQUEST_ID_HEADER, ...(response.headers as object) };
}

/** Plain JSON of a declaration: named schemas other than `self` become a `$ref`. */
function toJson(value: unknown, self?: object): Json {
  if (Array.isArray(value)) return value.map((item) => toJson(item));
  if (value === null || typeof value !== 'object') return value as Json;
  const name = value === self ? undefined : nameOf(value);
  if (name) return { $ref: `#/components/schemas/${name}` };
  const out: Record<string, Json> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) out[key] = toJson(item);
  }
  return out;
}

/** Where the generated document is kept, from the repository's root. */
export const OPENAPI_FILE = 'src/api/openapi.json';

/** The generated file's text. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
