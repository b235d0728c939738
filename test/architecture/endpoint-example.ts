/**
 * docs/development.md, "Adding an endpoint", as code that compiles (`npm run typecheck`)
 * and runs (endpoint-example.test.ts mounts it and calls it). A real endpoint's declaration
 * goes into `PATHS` (src/server/contract/paths.ts), its handler into
 * src/server/api/routes/, its entry into `ROUTES` (src/server/api/app.ts); this one stays
 * here so that the published document does not carry an example.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { CheckedInput, EntryOf } from '../../src/server/api/route-input.js';
import type { ServiceContext } from '../../src/server/context.js';
import type { PathDeclaration } from '../../src/server/contract/declare.js';
import { errors } from '../../src/server/contract/error-answers.js';
import type { Caller } from '../../src/server/rules/auth.js';

/** 1. Declare it: path, who may call it, what it accepts and answers. */
const RenameRequest = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

export const RENAME_EXAMPLE = {
  path: '/v1/examples/rename',
  operations: {
    post: {
      operationId: 'renameExample',
      tags: ['Examples'],
      summary: 'Greets a name (secret key)',
      security: [{ secretKey: [] }],
      requestBody: { required: true, content: { 'application/json': { schema: RenameRequest } } },
      responses: {
        '200': {
          description: 'The greeting.',
          content: { 'application/json': { schema: Type.Object({ greeting: Type.String() }) } },
        },
        ...errors(400, 401, { 403: 'SecretKeyRequired' }, 408, 414, 429, 431, 500, 503),
      },
    },
  },
} as const satisfies PathDeclaration;

/**
 * 2. Write its handler: it is handed the caller and the body, already checked against the
 * declaration (a real one is typed `RouteInput<'renameExample'>`, its body from `PATHS`).
 */
export async function renameExampleHandler(
  _ctx: ServiceContext,
  { reply, caller, body }: CheckedInput<Caller, Static<typeof RenameRequest>>,
): Promise<void> {
  reply.send({ greeting: `Hello, ${body.name}, from project ${caller.project.id}.` });
}

/** 3. Its entry in the route table: who may call it, how its JSON is read. */
export const RENAME_EXAMPLE_ENTRY: EntryOf<CheckedInput<Caller, Static<typeof RenameRequest>>> = {
  access: { secretOnly: true },
  json: {},
  handle: renameExampleHandler,
};
