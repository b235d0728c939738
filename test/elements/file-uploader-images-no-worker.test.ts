import { expect } from '@open-wc/testing';
import '../../src/index.js';
import type { FileRecord } from '../../src/api/types.js';
import { halves, served, size, uploader, uploadOne } from './image-helpers.js';

// A page of its own (each test file is): no worker was made here before the policy is set.
describe('<file-uploader> on a page whose Content Security Policy refuses workers', () => {
  before(() => {
    const policy = document.createElement('meta');
    policy.httpEquiv = 'Content-Security-Policy';
    policy.content = "worker-src 'none'";
    document.head.append(policy);
  });

  it('still makes images smaller, in the page', async () => {
    let refused = 0;
    document.addEventListener('securitypolicyviolation', () => refused++);
    const element = await uploader({ 'max-image-width': '30' });
    const [record] = (await uploadOne(element, [
      new File([await halves(90, 60)], 'p.jpg', { type: 'image/jpeg' }),
    ])) as [FileRecord];
    expect(await size(await served(record))).to.deep.equal([30, 20]);
    expect(refused).to.be.above(0);
  });
});
