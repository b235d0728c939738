import type { Plan } from '../../api/limits.js';
import type { Usage } from '../../api/types.js';
import type { Project, Quota, QuotaExceededError } from '../db/metadata-store.js';
import { ServiceError } from '../http/errors.js';

/** Each plan's limits (decisions.md, "Quotas and usage"): free 10 GB and 1,000 pending uploads. */
export const PLAN_QUOTA: Readonly<Record<Plan, Quota>> = {
  free: { storageBytes: 10_000_000_000, pendingUploads: 1_000 },
  paid: { storageBytes: null, pendingUploads: null },
};

/** A project's limits: its own where set (0: none), else its plan's. */
export function projectQuota(
  project: Pick<Project, 'plan' | 'storageQuota' | 'maxPendingUploads'>,
): Quota {
  const plan = PLAN_QUOTA[project.plan];
  const own = (value: number | null, planValue: number | null) =>
    value === null ? planValue : value === 0 ? null : value;
  return {
    storageBytes: own(project.storageQuota, plan.storageBytes),
    pendingUploads: own(project.maxPendingUploads, plan.pendingUploads),
  };
}

/** `403 quota_exceeded`, saying which limit and how much room is left. */
export function quotaError(error: QuotaExceededError, quota: Quota): ServiceError {
  const { usage } = error;
  if (error.limit === 'storage') {
    const room = Math.max(0, (quota.storageBytes ?? 0) - usage.storedBytes - usage.pendingBytes);
    return new ServiceError(
      'quota_exceeded',
      `The project's storage quota of ${quota.storageBytes} bytes would be passed: ${room} bytes are left (stored files and pending uploads count).`,
      { extra: { limit: 'storage', quota: quota.storageBytes, available: room } },
    );
  }
  return new ServiceError(
    'quota_exceeded',
    `The project may have at most ${quota.pendingUploads} pending uploads at once; complete or cancel some first.`,
    {
      extra: {
        limit: 'pending_uploads',
        quota: quota.pendingUploads,
        available: Math.max(0, (quota.pendingUploads ?? 0) - usage.pendingUploads),
      },
    },
  );
}

/** The `GET /v1/usage` answer. */
export function usageAnswer(usage: Omit<Usage, 'quota'>, quota: Quota): Usage {
  return {
    ...usage,
    quota: { storageBytes: quota.storageBytes, pendingUploads: quota.pendingUploads },
  };
}
