import type { Static, TSchema } from '@sinclair/typebox';
import type { PATHS } from './paths.js';

/**
 * Types of the declarations, for the code that runs: erased when compiled, so the running
 * service loads nothing of this folder (it reads the generated document, contract-reader/contract.ts).
 */

type Declared = (typeof PATHS)[number];
type OperationsOf<P> = P extends { operations: infer O } ? O[keyof O] : never;
type IdsOf<P> =
  OperationsOf<P> extends infer Each
    ? Each extends { operationId: infer I extends string }
      ? I
      : never
    : never;

/** Every operation the declarations name. */
export type OperationId = IdsOf<Declared>;

/** The operations of the paths served on the CDN's own origin: those naming `servers`. */
export type CdnOperationId = IdsOf<Extract<Declared, { servers: readonly unknown[] }>>;

type OperationOf<Id extends OperationId> =
  OperationsOf<Declared> extends infer Each
    ? Each extends { operationId: Id }
      ? Each
      : never
    : never;

/**
 * The JSON body an operation declares, as a value that passed its schema: absent
 * (`undefined`) too when the declaration says it is optional; `undefined` alone for an
 * operation that takes no JSON body.
 */
export type JsonBodyOf<Id extends OperationId> =
  OperationOf<Id> extends {
    requestBody: {
      required: infer Required;
      content: { 'application/json': { schema: infer Schema extends TSchema } };
    };
  }
    ? Required extends true
      ? Static<Schema>
      : Static<Schema> | undefined
    : undefined;
