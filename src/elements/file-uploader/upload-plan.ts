import type { SignResponse, UploadState } from '../../api/types.js';

/** One part of a file's upload: where to PUT it, and its ETag once the service holds it. */
export interface PlannedPart {
  partNumber: number;
  size: number;
  url: string;
  headers: Record<string, string>;
  etag: string | null;
}

/** What the sign step learned about a file: its upload id and its parts. */
export interface UploadPlan {
  uploadId: string;
  partSize: number;
  parts: PlannedPart[];
}

export function planFromSign(signed: SignResponse): UploadPlan {
  return {
    uploadId: signed.id,
    partSize: signed.partSize,
    parts: signed.parts.map((part) => ({
      partNumber: part.partNumber,
      size: part.size,
      url: part.url,
      headers: part.headers,
      etag: null,
    })),
  };
}

/** A plan from `GET /v1/uploads/:id`: fresh URLs, and the parts already held (resume). */
export function planFromState(state: UploadState): UploadPlan {
  return {
    uploadId: state.id,
    partSize: state.partSize,
    parts: state.parts.map((part) => ({
      partNumber: part.partNumber,
      size: part.size,
      url: part.url ?? '',
      headers: part.headers ?? {},
      etag: part.etag,
    })),
  };
}

export function missingParts(plan: UploadPlan): PlannedPart[] {
  return plan.parts.filter((part) => part.etag === null);
}
