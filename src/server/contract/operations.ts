import type { PATHS } from './paths.js';

type Declared = (typeof PATHS)[number];
type IdsOf<P> = P extends { operations: infer O }
  ? O[keyof O] extends infer Each
    ? Each extends { operationId: infer I extends string }
      ? I
      : never
    : never
  : never;

/** Every operation the declarations name. */
export type OperationId = IdsOf<Declared>;

/** The operations of the paths served on the CDN's own origin: those naming `servers`. */
export type CdnOperationId = IdsOf<Extract<Declared, { servers: readonly unknown[] }>>;
