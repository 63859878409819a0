import { expect } from 'chai';
import { kmem } from '../../src/kernel/memory';

describe('kernel memory: fields hold integers', () => {
  // The machine's clocks advance by fractional nanoseconds; a task forked at such a time stored
  // it in task_struct.start_time, and reading the task (e.g. `__task_field($next, "pid")` in
  // scheduler.cpu_off) ended in an internal fault ("cannot be converted to a BigInt").
  it('a fractional value is stored as its whole part, as the kernel\'s u64 would hold it', () => {
    const t = kmem.allocStruct('struct task_struct');
    kmem.setField(t, 'struct task_struct', 'start_time', 10896171895393.75);
    const f = kmem.fieldOf('struct task_struct', 'start_time');
    expect(kmem.readUnsigned(t + f.offset, 8)).to.equal(10896171895393n);
  });
  it('a bitfield too', () => {
    const t = kmem.allocStruct('struct task_struct');
    expect(() => kmem.setField(t, 'struct task_struct', 'in_iowait', 1.5)).to.not.throw();
  });
});
