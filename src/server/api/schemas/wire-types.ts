import type { Static, TSchema } from '@sinclair/typebox';
import type * as Wire from '../../../api/types.js';
import type * as S from './components.js';

/**
 * The client's types (src/api/types.ts, which the published package carries without
 * TypeBox) and the route schemas must say the same: each line below fails type checking
 * (`npm run typecheck`) when a schema and its type part ways.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Agrees<T extends TSchema, W> = Same<Static<T>, W>;
/** For requests the client may be stricter than the service: all it sends is accepted. */
type Accepts<T extends TSchema, W> = [W] extends [Static<T>] ? true : false;

export type WireTypesAgree = [
  Expect<Agrees<typeof S.Visibility, Wire.Visibility>>,
  Expect<Agrees<typeof S.FileStatus, Wire.FileStatus>>,
  Expect<Agrees<typeof S.Metadata, Wire.FileMetadata>>,
  Expect<Agrees<typeof S.ImportProgress, Wire.ImportProgress>>,
  Expect<Agrees<typeof S.ImportRequest, Wire.ImportRequest>>,
  // The client always names the file; the service takes none (`upload`).
  Expect<Accepts<typeof S.SignRequest, Wire.SignRequest>>,
  Expect<Accepts<typeof S.SignBatchRequest, Wire.SignBatchRequest>>,
  Expect<Agrees<typeof S.SignedUrlResponse, Wire.SignedUrlResponse>>,
  Expect<Agrees<typeof S.UploadResponse, Wire.UploadResponse>>,
  Expect<Agrees<typeof S.PartUploadResponse, Wire.PartUploadResponse>>,
  Expect<Agrees<typeof S.CompleteRequest, Wire.CompleteRequest>>,
  Expect<Agrees<typeof S.Usage, Wire.Usage>>,
  Expect<Agrees<typeof S.FileRecord, Wire.FileRecord>>,
  Expect<Agrees<typeof S.FileListResponse, Wire.FileListResponse>>,
  Expect<Agrees<typeof S.SignResponse, Wire.SignResponse>>,
  Expect<Agrees<typeof S.UploadState, Wire.UploadState>>,
  Expect<Agrees<typeof S.UploadTokenRequest, Wire.UploadTokenRequest>>,
  Expect<Agrees<typeof S.UploadTokenResponse, Wire.UploadTokenResponse>>,
  Expect<Agrees<typeof S.SignedUrlRequest, Wire.SignedUrlRequest>>,
  Expect<Agrees<typeof S.ImageTransform, Wire.ImageTransform>>,
];

type Expect<T extends true> = T;
