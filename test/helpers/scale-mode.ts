/**
 * The deployment the API tests run on. `npm test` runs them twice: on the embedded default,
 * and with `FILEHOST_TEST_DEPLOYMENT=scale` on PostgreSQL and S3-compatible storage (a
 * throwaway cluster and a one-node Ceph RADOS Gateway, started once per test file; see
 * `scale.ts`).
 */
export const SCALE = process.env.FILEHOST_TEST_DEPLOYMENT === 'scale';

/** Why a test is for the embedded deployment only (its local-disk part route, its data dir). */
export const LOCAL_ONLY = SCALE ? 'checks the local-disk store, not in use at scale' : false;
