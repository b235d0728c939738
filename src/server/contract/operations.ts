import type { PATHS } from './paths.js';

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
