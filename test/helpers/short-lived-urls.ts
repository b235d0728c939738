/**
 * How long the signed URLs of the browser tests' short-lived service last (`shortLivedUrls`
 * in test/helpers/wtr-plugins.ts). Long enough for a fresh URL to be used in time on a machine
 * loaded as CI's is: at 1 s, parts signed again expired again before their PUTs arrived,
 * until the element gave up. Short enough for a test to outwait.
 */
export const SHORT_URL_TTL_SECONDS = 5;

/** A hold that outlasts them: the held request reaches the service with its URL expired. */
export const PAST_SHORT_URL_TTL_MS = SHORT_URL_TTL_SECONDS * 1000 + 1500;
