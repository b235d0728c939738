import type { MetadataStore } from '../db/metadata-store.js';
import type { BlobStore } from '../storage/blob-store.js';

/** A store `/readyz` probes, as its answer names it. */
export type ProbedStore = 'database' | 'storage';

/** How long each store has to answer its probe (decisions.md, "Operating the service"). */
export const PROBE_DEADLINE_MS = 1000;

export interface Readiness {
  ready: boolean;
  /** The stores that did not answer in time, in a fixed order; empty when ready. */
  failing: ProbedStore[];
  /** Why each failing store failed, for the log (never for the answer: it may name internals). */
  reasons: Partial<Record<ProbedStore, unknown>>;
}

/** Both stores probed at once, each given `PROBE_DEADLINE_MS`. */
export async function probeStores(stores: {
  db: Pick<MetadataStore, 'probe'>;
  blobs: Pick<BlobStore, 'probe'>;
}): Promise<Readiness> {
  const probes: Array<[ProbedStore, () => Promise<void>]> = [
    ['database', () => stores.db.probe()],
    ['storage', () => stores.blobs.probe()],
  ];
  const outcomes = await Promise.all(
    probes.map(([, probe]) => withinDeadline(probe, PROBE_DEADLINE_MS)),
  );
  const failing: ProbedStore[] = [];
  const reasons: Readiness['reasons'] = {};
  probes.forEach(([name], index) => {
    const outcome = outcomes[index];
    if (outcome?.ok) return;
    failing.push(name);
    reasons[name] = outcome?.error;
  });
  return { ready: failing.length === 0, failing, reasons };
}

/** The probe's outcome, or a failure once `ms` pass without one (the probe is left to end). */
function withinDeadline(
  probe: () => Promise<void>,
  ms: number,
): Promise<{ ok: true } | { ok: false; error: unknown }> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => resolve({ ok: false, error: new Error(`no answer within ${ms} ms`) }),
      ms,
    );
    Promise.resolve()
      .then(probe)
      .then(
        () => resolve({ ok: true }),
        (error: unknown) => resolve({ ok: false, error }),
      )
      .finally(() => clearTimeout(timer));
  });
}
