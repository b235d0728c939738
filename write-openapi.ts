/**
 * `npm run openapi`: writes src/api/openapi.json, the OpenAPI document the package exports,
 * and src/api/wire.generated.ts, the client's wire types, from the route declarations in
 * src/server/contract/. Both files are generated, never edited;
 * test/server/contract/openapi.test.ts and wire-types.test.ts fail while they are stale.
 */
import { writeFile } from 'node:fs/promises';
import { OPENAPI_FILE, openApiText } from './src/server/contract/openapi.js';
import { WIRE_TYPES_FILE, wireTypesText } from './src/server/contract/wire-types.js';

await writeFile(OPENAPI_FILE, openApiText());
console.log(`wrote ${OPENAPI_FILE}`);
await writeFile(WIRE_TYPES_FILE, wireTypesText());
console.log(`wrote ${WIRE_TYPES_FILE}`);
