import { expect } from '@open-wc/testing';
import { Connections } from '../../../src/elements/upload-engine/connections.js';
import { LocalFailure } from '../../../src/elements/upload-engine/failure-cause.js';
import { type FileUpload, newFileUpload } from '../../../src/elements/upload-engine/file-state.js';
import { RememberedUploads } from '../../../src/elements/upload-engine/remembered-uploads.js';
import { remember } from '../../../src/elements/upload-engine/resume-writes.js';
import { signJob } from '../../../src/elements/upload-engine/sign-step.js';
import { file, LOADED, project } from '../helpers.js';
import { englishTexts, settingsFor, targetOf } from './engine-support.js';

/**
 * The sign step of a file's attempt against the real service, as an attempt runs it: the
 * job `signJob` makes, through its endpoint's `UploadSequence.prepare` (the step
 * `runSequence` takes first). A new upload signed, a retried one resumed from what the
 * service holds, one remembered from before a reload taken up, and one the service forgot
 * said so.
 */
describe('signJob (what an attempt signs or resumes by)', () => {
  const MiB = 1024 * 1024;
  /** What the sign step has as a new element's engine has it: its connections, no memory yet. */
  const freshContext = (
    checksum: 'off' | 'small',
    memory = new RememberedUploads(() => undefined),
  ) => ({ connections: new Connections(), memory, checksum });
  /** The sign step of one attempt: the plan the file goes by, and whether signed now. */
  const signStep = async (
    upload: FileUpload,
    chosen: File,
    { connections, memory, checksum }: ReturnType<typeof freshContext>,
  ) => {
    const sequence = await connections.sequenceFor(upload.target);
    const job = await signJob(upload, chosen, memory, checksum, new AbortController().signal);
    const { plan, state, together } = await sequence.prepare(job);
    return { plan, signed: state === null, together };
  };

  it('signs a new upload, and resumes it on the next attempt with the parts the service holds', async () => {
    const p = await project();
    const settings = settingsFor(p.endpoint, p.publishableKey);
    const context = freshContext('off');
    const big = file('big.bin', 11 * MiB, 'application/octet-stream', 3);
    const upload = newFileUpload(targetOf(settings), null);
    const first = await signStep(upload, big, context);
    expect(first.signed).to.equal(true);
    expect(first.plan.parts.map((part) => part.size)).to.deep.equal([5 * MiB, 5 * MiB, MiB]);
    // The first part lands; the attempt stops there (a pause, a lost connection).
    const [part] = first.plan.parts;
    if (!part) throw new Error('no part');
    const put = await fetch(part.url, {
      method: 'PUT',
      body: big.slice(0, 5 * MiB),
      headers: part.headers,
    });
    expect(put.ok).to.equal(true);
    upload.plan = first.plan;
    const second = await signStep(upload, big, context);
    expect(second.signed).to.equal(false);
    expect(second.plan.uploadId).to.equal(first.plan.uploadId);
    expect(second.plan.parts.map((one) => one.etag !== null)).to.deep.equal([true, false, false]);
  });

  it('marks files signed in one batch call, so that their completes go together too', async () => {
    const p = await project();
    const settings = settingsFor(p.endpoint, p.publishableKey);
    const context = freshContext('small');
    const uploads = [0, 1, 2].map(() => newFileUpload(targetOf(settings), null));
    const signed = await Promise.all(
      uploads.map((upload, index) => signStep(upload, file(`s${index}.txt`, 10 + index), context)),
    );
    expect(signed.map((one) => one.signed)).to.deep.equal([true, true, true]);
    expect(signed.map((one) => one.together)).to.deep.equal([true, true, true]);
    expect(new Set(signed.map((one) => one.plan.uploadId)).size).to.equal(3);
    // The next attempt of one (a retry after its complete failed) is still completed by the
    // batch call, as the attempt recorded (`signedTogether`); one signed alone is not.
    const [first] = uploads;
    const [firstSigned] = signed;
    if (!first || !firstSigned) throw new Error('no upload');
    Object.assign(first, { plan: firstSigned.plan, signedTogether: true });
    const again = await signStep(first, file('s0.txt', 10), context);
    expect([again.signed, again.together]).to.deep.equal([false, true]);
    const alone = newFileUpload(targetOf(settings), null);
    const lone = await signStep(alone, file('alone.txt', 30), freshContext('small'));
    expect([lone.signed, lone.together]).to.deep.equal([true, false]);
  });

  it('takes up an upload remembered before a reload, and says so when the service forgot it', async () => {
    const p = await project();
    const settings = settingsFor(p.endpoint, p.publishableKey, { rememberUploads: true });
    const chosen = file('kept.bin', 3000, 'application/octet-stream', 9);
    // A real upload, signed and left unfinished, then remembered as the element remembers it.
    const earlier = newFileUpload(targetOf(settings), null);
    const { plan } = await signStep(earlier, chosen, freshContext('off'));
    const { fingerprintOf } = await import('../../../src/client/fingerprint.js');
    const fingerprint = await fingerprintOf(chosen, [
      chosen.name,
      chosen.size,
      chosen.type,
      chosen.lastModified,
    ]);
    const kept = {
      endpoint: p.endpoint,
      apiKey: p.publishableKey,
      fingerprint,
      name: chosen.name,
      size: chosen.size,
      file: null,
    };
    await remember({ ...kept, id: plan.uploadId, token: plan.uploadToken });
    // And one the service never had (as if expired since).
    const gone = file('gone.bin', 4000, 'application/octet-stream', 8);
    await remember({
      ...kept,
      fingerprint: await fingerprintOf(gone, [gone.name, gone.size, gone.type, gone.lastModified]),
      name: gone.name,
      size: gone.size,
      id: 'AAAAAAAAAAAAAAAAAAAAAA',
      token: null,
    });

    const memory = new RememberedUploads(() => undefined);
    let recalled = false;
    memory.recall(settings, () => undefined);
    const deadline = Date.now() + LOADED.timeout;
    while (memory.interrupted.length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(memory.interrupted.map((view) => view.name).sort()).to.deep.equal([
      'gone.bin',
      'kept.bin',
    ]);
    const context = freshContext('off', memory);
    const again = newFileUpload(targetOf(settings), null);
    const taken = await signStep(again, chosen, context);
    recalled = again.recalled;
    expect([taken.signed, taken.plan.uploadId, recalled]).to.deep.equal([
      false,
      plan.uploadId,
      true,
    ]);

    const lost = newFileUpload(targetOf(settings), null);
    let thrown: unknown;
    try {
      await signStep(lost, gone, context);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(LocalFailure);
    const failure = (thrown as LocalFailure).word(englishTexts(), 'en');
    // Worded as an expired upload, not as a wrong address (`not_found` at a sign).
    expect([failure.code, failure.step]).to.deep.equal(['not_found', 'sign']);
    expect(failure.message).to.contain('expired');
    expect(memory.interrupted).to.deep.equal([]);
    again.unlock?.();
  });
});
