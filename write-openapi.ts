/**
 * `npm run openapi`: writes src/api/openapi.json, the OpenAPI document the package exports,
 * from the route declarations in src/server/api/schemas/. The file is generated, never
 * edited; test/server/api/schemas/openapi.test.ts fails while it is stale.
 */
import { writeFile } from 'node:fs/promises';
import { OPENAPI_FILE, openApiText } from './src/server/api/schemas/openapi.js';

await writeFile(OPENAPI_FILE, openApiText());
console.log(`wrote ${OPENAPI_FILE}`);
