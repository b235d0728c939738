/**
 * What a failure shows after its words, in brackets: its code, and once the service's words
 * are in (`en-service.ts`, fetched before any answer of the service is worded) the id the
 * service gave the request, which a user's report can quote to find its log lines. Filled
 * there so the first load does not carry it: only an answer has an id.
 */
export const failureDetails = {
  // The two fields of a `ServiceFailure` it reads, spelled here: importing that type from
  // `failure-text.ts` would close a circle through `en-service.ts`.
  of: (failure: { code: string; details: Readonly<Record<string, unknown>> }): string =>
    failure.code,
};
