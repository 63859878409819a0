import { expect } from 'chai';
import { KStack, KSTACK_DEPTH } from '../../src/machine/include/kstack';

describe('machine/task: kernel stacks from shared slabs', () => {
  it('gives every stack its own full-depth function and mark stacks', () => {
    const stacks = Array.from({ length: 150 }, () => new KStack());
    stacks.forEach((ks, i) => {
      expect(ks.fn.length).to.equal(KSTACK_DEPTH);
      expect(ks.mark.length).to.equal(KSTACK_DEPTH);
      ks.fn.fill(2 * i + 1);
      ks.mark.fill(-(2 * i + 1));
    });
    stacks.forEach((ks, i) => {
      expect(ks.fn.every((v) => v === 2 * i + 1), `fn of stack ${i}`).to.equal(true);
      expect(ks.mark.every((v) => v === -(2 * i + 1)), `mark of stack ${i}`).to.equal(true);
      expect(ks.sp).to.equal(0);
      expect(ks.frames).to.deep.equal([]);
    });
  });
});
