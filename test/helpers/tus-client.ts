import { request as httpRequest } from 'node:http';
import { DetailedError, Upload, type UploadOptions } from 'tus-js-client';

/** What a tus-js-client upload ended with: the file's headers, or the refusal. */
export interface TusOutcome {
  url: string | null;
  fileId?: string;
  fileUrl?: string;
  status?: number;
  body?: string;
}

/**
 * Uploads `bytes` with tus-js-client (a client no one here wrote) and answers how it ended:
 * the `Filehost-File-*` headers of the last answer, or the status and body of a refusal.
 */
export function tusUpload(bytes: Buffer, options: UploadOptions): Promise<TusOutcome> {
  return new Promise((resolve, reject) => {
    const upload = new Upload(bytes, {
      retryDelays: [],
      ...options,
      onSuccess: (payload) => {
        const response = payload.lastResponse;
        resolve({
          url: upload.url,
          fileId: response.getHeader('Filehost-File-Id'),
          fileUrl: response.getHeader('Filehost-File-Url'),
        });
      },
      onError: (error) => {
        if (error instanceof DetailedError && error.originalResponse) {
          resolve({
            url: upload.url,
            status: error.originalResponse.getStatus(),
            body: error.originalResponse.getBody(),
          });
        } else reject(error);
      },
    });
    upload.start();
  });
}

/**
 * Starts uploading `bytes` and calls `stop` (an abort, a kill) once at least `bytes` have
 * been accepted; answers the upload URL and the offset accepted when it stopped.
 */
export function tusUploadUntil(
  bytes: Buffer,
  options: UploadOptions,
  acceptedAtLeast: number,
  stop: (upload: Upload) => Promise<void> | void,
): Promise<{ url: string; accepted: number }> {
  return new Promise((resolve, reject) => {
    let stopped = false;
    const upload = new Upload(bytes, {
      retryDelays: [],
      ...options,
      onChunkComplete: (_chunk, accepted) => {
        if (stopped || accepted < acceptedAtLeast) return;
        stopped = true;
        Promise.resolve(stop(upload)).then(
          () => resolve({ url: upload.url as string, accepted }),
          reject,
        );
      },
      // After a kill the PATCH under way fails: expected, the test resumes it.
      onError: (error) => {
        if (!stopped) reject(error);
      },
    });
    upload.start();
  });
}

/** An answer to a request by hand: status, headers, body text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request by hand through `node:http`, for what tus-js-client never sends (a wrong
 * checksum, a PATCH at a wrong offset, two at once): its answer, whole.
 */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}
