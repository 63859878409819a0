import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceSetFilter } from '../../src/kernel/ftrace';
import { symbolName, lookupAddr, symbol, lookupName } from '../../src/kernel/kallsyms';
import { kmem, userSpace } from '../../src/kernel/memory';
import { btfFunc, btfResolveChain } from '../../src/kernel/btf';
import { syscallEventProbeRegister, syscallEventProbeUnregister } from '../../src/kernel/tracepoint';

/** Follow a $a->b->c chain through kernel memory the way a probe reads it. */
function chain(addr: number, fn: string, param: number, path: string[]): number {
  const steps = btfResolveChain(btfFunc(fn)!.params[param].type, path);
  // loc: address of the current member; the parameter itself is a pointer value
  let loc = 0;
  steps.forEach((s, i) => {
    if (s.deref) loc = (i === 0 ? addr : kmem.readPtr(loc)) + s.offset;
    else loc += s.offset;
  });
  return loc;
}

describe('machine: function arguments and kernel memory', () => {
  it('vfs_read gets file/buf/count/pos; $file->f_path->dentry->d_name->name reads the file name', () => {
    const m = new Machine({ seed: 3 });
    const got: Record<string, unknown[]> = {};
    // cat's own open of /etc/hostname (ld.so opened ld.so.cache and libc.so.6 and read libc's ELF header before it)
    let opened = false;
    const op = new FtraceOps('args_ops', (ip, _p, _o, regs, ctx) => {
      const n = symbolName(lookupAddr(ip)!.id);
      if (n === 'do_sys_openat2' && ctx.task.comm === 'cat') opened = userSpace(ctx.task.pid).readString(regs.args[1] as number, 64) === '/etc/hostname';
      if (!got[n] && ctx.task.comm === 'cat' && opened) {
        got[n] = regs.args.slice();
        if (n === 'vfs_read') got.posAtEntry = [kmem.readS64(regs.args[3] as number)];
      }
    });
    for (const g of ['vfs_read', 'do_sys_openat2', 'ext4_file_read_iter']) ftraceSetFilter(op, g, false);
    registerFtraceFunction(op);
    const r = m.run('cat /etc/hostname');
    unregisterFtraceFunction(op);
    expect(r.out).to.equal('debian\n');
    const [file, buf, count, pos] = got.vfs_read;
    const fa = kmem.addrOf(file);
    expect(fa).to.be.lessThan(0); // a kernel address
    const nameField = chain(fa, 'vfs_read', 0, ['f_path', 'dentry', 'd_name', 'name']);
    expect(kmem.readString(kmem.readPtr(nameField), 64)).to.equal('hostname');
    expect(count).to.be.greaterThan(0);
    expect(buf as number).to.be.greaterThan(0x7f0000000000);
    expect(got.posAtEntry[0]).to.equal(0);
    expect(pos as number).to.be.lessThan(0); // loff_t *: a kernel address
    const [dfd, fname] = got.do_sys_openat2;
    expect(dfd).to.equal(-100);
    const pid = r.pid;
    void pid;
    expect(got.ext4_file_read_iter).to.have.length(2);
    const filp = chain(got.ext4_file_read_iter[0] as number, 'ext4_file_read_iter', 0, ['ki_filp']);
    expect(kmem.readPtr(filp)).to.equal(fa);
    expect(typeof fname).to.equal('number');
  });
  it('user strings: do_sys_openat2 filename is readable in the caller\'s user space', () => {
    const m = new Machine({ seed: 4 });
    let seen = '';
    const op = new FtraceOps('open_ops', (_ip, _p, _o, regs, ctx) => {
      if (ctx.task.comm === 'cat') seen = userSpace(ctx.task.pid).readString(regs.args[1] as number, 256);
    });
    ftraceSetFilter(op, 'do_sys_openat2', false);
    registerFtraceFunction(op);
    m.run('cat /etc/passwd > /dev/null');
    unregisterFtraceFunction(op);
    expect(seen).to.equal('/etc/passwd');
  });
  it('module functions: ext4/jbd2/scsi/ahci are in kallsyms with [module] names and on the I/O paths', () => {
    const id = lookupName('ext4_file_read_iter')[0];
    expect(symbol(id).module).to.equal('ext4');
    expect(symbol(lookupName('jbd2_journal_stop')[0]).module).to.equal('jbd2');
    const m = new Machine({ seed: 5 });
    m.fs.createFile('/root/f.bin', { size: 1 << 20, gen: (o, l) => new Uint8Array(l).fill(o & 255) });
    const parents = new Map<string, number>();
    const op = new FtraceOps('mod_ops', (ip, pip) => {
      const p = lookupAddr(pip);
      const k = `${symbolName(lookupAddr(ip)!.id)}<-${p ? symbolName(p.id) : '?'}`;
      parents.set(k, (parents.get(k) ?? 0) + 1);
    });
    for (const g of ['ext4_*', 'generic_file_read_iter', 'scsi_queue_rq', 'ahci_qc_issue', 'jbd2_*', 'sd_done']) ftraceSetFilter(op, g, false);
    registerFtraceFunction(op);
    m.run('cat /root/f.bin > /dev/null; echo hi > /root/x; sync');
    unregisterFtraceFunction(op);
    const keys = [...parents.keys()];
    expect(keys).to.include('ext4_file_read_iter<-vfs_read');
    expect(keys).to.include('generic_file_read_iter<-ext4_file_read_iter');
    expect(keys).to.include('ext4_file_write_iter<-vfs_write');
    expect(keys).to.include('scsi_queue_rq<-blk_mq_dispatch_rq_list');
    expect(keys).to.include('ahci_qc_issue<-ata_qc_issue');
    expect(keys).to.include('sd_done<-scsi_finish_command');
    expect(keys).to.include('jbd2_journal_stop<-__ext4_journal_stop');
  });
  it('syscalls:sys_enter_<name>/sys_exit_<name> fire from the syscall path (per-nr dispatch)', () => {
    const m = new Machine({ seed: 6 });
    const enters: number[][] = [];
    const exits: number[] = [];
    const fe = (_d: unknown, regs: { args: readonly unknown[] }, nr: number) => { enters.push([nr, Number(regs.args[0])]); };
    const fx = (_d: unknown, _regs: unknown, ret: number) => { exits.push(ret); };
    expect(syscallEventProbeRegister('sys_enter_close', fe, null)).to.equal(0);
    expect(syscallEventProbeRegister('sys_exit_close', fx, null)).to.equal(0);
    m.run('cat /etc/hostname > /dev/null');
    syscallEventProbeUnregister('sys_enter_close', fe, null);
    syscallEventProbeUnregister('sys_exit_close', fx, null);
    expect(enters.length).to.be.greaterThan(0);
    expect(enters.every((e) => e[0] === 3)).to.equal(true);
    expect(exits.length).to.equal(enters.length);
  });
});
