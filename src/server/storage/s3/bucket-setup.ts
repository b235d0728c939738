import {
  type CORSRule,
  type LifecycleRule,
  PutBucketCorsCommand,
  PutBucketLifecycleConfigurationCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../../ground/config.js';

/**
 * Days after which the bucket itself aborts a multipart upload nobody completed. The
 * service aborts what it knows of when an upload expires (its URL lifetime, extended by
 * every resume, plus `FILEHOST_PENDING_GRACE`); this rule is the backstop for what an
 * instance killed at the wrong moment could not record. It must outlast any real upload.
 */
export const ABORT_INCOMPLETE_AFTER_DAYS = 7;

/**
 * The bucket's CORS rule: pages on `origins` may PUT parts straight to the bucket (with
 * whatever headers the signed part lists) and read each part's ETag, which the client
 * needs to complete. A preflight is cached for two hours.
 */
export function bucketCorsRules(origins: string[]): CORSRule[] {
  return [
    {
      AllowedOrigins: origins,
      AllowedMethods: ['PUT'],
      AllowedHeaders: ['*'],
      ExposeHeaders: ['ETag'],
      MaxAgeSeconds: 7200,
    },
  ];
}

export function bucketLifecycleRules(): LifecycleRule[] {
  return [
    {
      ID: 'filehost-abort-incomplete-uploads',
      Status: 'Enabled',
      Filter: { Prefix: '' },
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: ABORT_INCOMPLETE_AFTER_DAYS },
    },
  ];
}

/** What addresses the bucket: the S3 settings but how parts are checked. */
type BucketAddress = Omit<S3Config, 'checksum'>;

/** How long a bucket call (`s3ClientFor`) may hear nothing from the store. */
export const BUCKET_CALL_IDLE_MS = 30_000;

/**
 * An SDK client for the configured store, with no checksum features some stores lack. Its
 * waits are bounded: the SDK sets none of its own, so a store that accepts a connection
 * and never answers held a `bucket setup` (or a test making its bucket) for ever. Bucket
 * calls are few and may be slow on a loaded gateway, so the silence allowed (`idleMs`) is
 * longer than the service's own.
 */
export function s3ClientFor(config: BucketAddress, idleMs = BUCKET_CALL_IDLE_MS): S3Client {
  return new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    ...(config.credentials ? { credentials: config.credentials } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 3_000, socketTimeout: idleMs },
  });
}

/** Applies the CORS and lifecycle rules above (`npm run admin -- bucket setup`). */
export async function configureBucket(config: BucketAddress, origins: string[]): Promise<void> {
  const client = s3ClientFor(config);
  try {
    await client.send(
      new PutBucketCorsCommand({
        Bucket: config.bucket,
        CORSConfiguration: { CORSRules: bucketCorsRules(origins) },
      }),
    );
    await client.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: config.bucket,
        LifecycleConfiguration: { Rules: bucketLifecycleRules() },
      }),
    );
  } finally {
    client.destroy();
  }
}
