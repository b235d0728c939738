import { expect } from '@open-wc/testing';
import type { FileRecord } from '../../../src/api/types.js';
import { localFailure } from '../../../src/elements/upload-engine/failure.js';
import {
  type EngineFile,
  type FileUpload,
  fileStatus,
  fileView,
  newFileUpload,
} from '../../../src/elements/upload-engine/file-state.js';

const target = {
  endpoint: 'http://api.test',
  apiKey: 'pk_live_x',
  metadata: {},
  visibility: 'public' as const,
};

function engineFile(progress: Partial<EngineFile['progress']> = {}, error: string | null = null) {
  return {
    id: 'f1',
    name: 'report<1>.pdf',
    size: 1000,
    type: 'application/pdf',
    error,
    progress: { uploadStarted: null, uploadComplete: false, bytesUploaded: 0, ...progress },
  } satisfies EngineFile;
}

function upload(change: Partial<FileUpload> = {}): FileUpload {
  return { ...newFileUpload(target, null), ...change };
}

const record = { id: 'abc', name: 'report_1_.pdf', size: 1000 } as FileRecord;
const failure = localFailure('network_error', 'upload', 'The connection was lost.');

describe('file-state (what <file-uploader> shows for each file the engine holds)', () => {
  it('derives the status: the first rule that holds wins', () => {
    const cases: [EngineFile, FileUpload, string][] = [
      [engineFile(), upload(), 'queued'],
      [engineFile(), upload({ outcome: 'running' }), 'preparing'],
      [engineFile(), upload({ outcome: 'running', step: 'preparing' }), 'preparing'],
      [
        engineFile({ uploadStarted: 1, bytesUploaded: 10 }),
        upload({ outcome: 'running' }),
        'uploading',
      ],
      [engineFile({ uploadStarted: 1, uploadComplete: true }), upload(), 'finishing'],
      [engineFile({ uploadStarted: 1 }), upload({ step: 'finishing' }), 'finishing'],
      [engineFile({}, 'x'), upload({ failure }), 'failed'],
      // Uppy's error without ours yet (the failure is being described): not failed yet.
      [engineFile({}, 'x'), upload(), 'queued'],
      [engineFile({}, 'x'), upload({ failure, retry: { timer: 0 as never, at: 5 } }), 'retrying'],
      [engineFile({ uploadComplete: true }, 'x'), upload({ failure, record }), 'done'],
      // Paused wins over every step on the way (a one-part file's bytes may have landed)...
      [
        engineFile({ uploadStarted: 1, bytesUploaded: 10 }),
        upload({ outcome: 'running', paused: true }),
        'paused',
      ],
      [engineFile({ uploadComplete: true }), upload({ paused: true }), 'paused'],
      [engineFile(), upload({ paused: true, step: 'preparing' }), 'paused'],
      // ...but not over a file that is done.
      [engineFile({ uploadComplete: true }), upload({ paused: true, record }), 'done'],
    ];
    for (const [file, state, expected] of cases) {
      expect(fileStatus(file, state), JSON.stringify({ file, state })).to.equal(expected);
    }
  });

  it('shows the failure only while failed or waiting to retry, and counts a stored file whole', () => {
    const failed = fileView(engineFile({}, 'x'), upload({ failure }));
    expect(failed.failure?.message).to.equal('The connection was lost.');
    const retrying = fileView(
      engineFile({}, 'x'),
      upload({ failure, retry: { timer: 0 as never, at: 1234 } }),
    );
    expect([retrying.status, retrying.failure?.code, retrying.retryAt]).to.deep.equal([
      'retrying',
      'network_error',
      1234,
    ]);
    const uploading = fileView(
      engineFile({ uploadStarted: 1, bytesUploaded: 250 }),
      upload({ failure }),
    );
    expect([uploading.failure, uploading.bytesUploaded, uploading.fraction]).to.deep.equal([
      null,
      250,
      0.25,
    ]);
    const done = fileView(
      engineFile({ uploadComplete: true, bytesUploaded: false }),
      upload({ record }),
    );
    expect([done.status, done.bytesUploaded, done.fraction, done.name]).to.deep.equal([
      'done',
      1000,
      1,
      'report_1_.pdf',
    ]);
  });

  it('shows the chosen name made safe until the service has named the file', () => {
    // A right-to-left override would show "report_fdp.exe" as "report_exe.pdf".
    const view = fileView({ ...engineFile(), name: 'report_\u202Efdp.exe' }, upload());
    expect(view.name).to.equal('report_fdp.exe');
    expect(fileView({ ...engineFile(), name: ' \u200B ' }, upload()).name).to.equal('upload');
  });
});
