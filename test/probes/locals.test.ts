/**
 * DWARF locals of the model's functions (data/kernel/locals.gz from the -dbg vmlinux). Expected -L
 * lines and messages are Debian's stap 4.8 resolving against the same -dbg vmlinux
 * (scripts/kernel-data/stap-oracle-tree.sh + ../shared/tools/real-stap -L / -p2): entry probes list
 * the locals whose location covers the entry pc (address + 5, past the __fentry__ call).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { functionLocals, evalLocation } from '../../src/kernel/locals';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
function stap(...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'latin1', timeout: 60000 });
}

describe('DWARF locals ($$locals, -L, $local)', function () {
  this.timeout(60000);

  it('-L lists the parameters and the locals readable at the entry, as stap does', () => {
    const expected: [string, string][] = [
      ['kernel.function("filemap_read")', 'kernel.function("filemap_read@mm/filemap.c:2725") $iocb:struct kiocb* $iter:struct iov_iter* $already_read:ssize_t $fbatch:struct folio_batch'],
      ['kernel.function("do_sys_openat2")', 'kernel.function("do_sys_openat2@fs/open.c:1304") $dfd:int $filename:char const* $how:struct open_how* $op:struct open_flags'],
      ['kernel.function("do_filp_open")', 'kernel.function("do_filp_open@fs/namei.c:3857") $dfd:int $pathname:struct filename* $op:struct open_flags const* $nd:struct nameidata'],
      ['kernel.function("vfs_read").return', 'kernel.function("vfs_read@fs/read_write.c:450").return $return:ssize_t $file:struct file* $buf:char* $count:size_t $pos:loff_t*'],
      // a compiler clone (finish_task_switch.isra.0) is probed by its DWARF name, with its DWARF parameters
      ['kernel.function("finish_task_switch")', 'kernel.function("finish_task_switch@kernel/sched/core.c:5093") $prev:struct task_struct*'],
    ];
    for (const [pp, line] of expected) expect(stap('-L', pp).stdout, pp).to.equal(line + '\n');
  });

  it('a local not at the entry pc, and an optimized-out one, fail as in stap', () => {
    let r = stap('-p2', '-e', 'probe kernel.function("filemap_read") { println($i) }');
    expect(r.stderr).to.contain("semantic error: not accessible at this address (pc: 0xffffffff81285725) [man error::dwarf]: identifier '$i' at <input>:1:49\n" +
      '        dieoffset: 0x27dbe42 from /usr/lib/debug/boot/vmlinux-6.1.0-56-amd64\n');
    r = stap('-p2', '-e', 'probe kernel.function("filemap_read") { println($writably_mapped) }');
    expect(r.stderr).to.contain("semantic error: failed to retrieve location attribute for 'writably_mapped' [man error::dwarf]: identifier '$writably_mapped' at <input>:1:49\n" +
      '        dieoffset: 0x27dbe68 from /usr/lib/debug/boot/vmlinux-6.1.0-56-amd64\n');
    r = stap('-p2', '-e', 'probe kernel.function("filemap_read") { println(@defined($i) ? 1 : 2) }');
    expect(r.status).to.equal(0);
  });

  it('$$locals/$$vars read the locals at the entry: stack variables live in the task\'s kernel stack', () => {
    const r = stap('-c', 'cat /etc/hostname', '-e',
      'probe kernel.function("filemap_read") { printf("[%s] [%s]\\n", $$locals, $$parms); printf("%p %d\\n", &$fbatch, $fbatch->nr); exit() }');
    const [l1, l2] = r.stdout.split('\n');
    expect(l1).to.match(/^\[fbatch=\{\.\.\.\}\] \[iocb=0xffff888[0-9a-f]+ iter=0xffff888[0-9a-f]+ already_read=0x0\]$/);
    // vmalloc'ed 16 KiB stacks (VMAP_STACK): 0xffffc90000000000 and up
    expect(l2).to.match(/^0xffffc900[0-9a-f]{8} 0$/);
  });

  it('a local addressed from rsp (DW_OP_breg7) at the entry: rsp is the CFA less the return address', () => {
    // do_filp_open's struct nameidata nd: -L lists it at the entry, its location is rsp-relative
    const r = stap('-c', 'cat /etc/hostname', '-e',
      'probe kernel.function("do_filp_open") { printf("[%s]\\n%p %d\\n", $$locals, &$nd, $nd->depth); exit() }');
    const [l1, l2] = r.stdout.split('\n');
    expect(l1, r.stderr).to.equal('[nd={...}]');
    expect(l2).to.match(/^0xffffc900[0-9a-f]{8} 0$/);
  });

  it('location expressions evaluate over the entry registers and the frame', () => {
    const ctx = { arg: (i: number) => BigInt(0x1000 * (i + 1)), cfa: 0x8000n, read: (a: bigint) => a + 1n };
    expect(evalLocation('reg5', ctx)).to.equal(0x1000n);
    expect(evalLocation('reg1', ctx)).to.equal(0x3000n);
    expect(evalLocation('fbreg -192', ctx)).to.equal(0x8000n - 192n);
    expect(evalLocation('breg4 +152,stack_value', ctx)).to.equal(0x2000n + 152n);
    expect(evalLocation('breg5 +0,deref,plus_uconst 0x98,stack_value', ctx)).to.equal(0x1000n + 1n + 0x98n);
    expect(evalLocation('lit0,stack_value', ctx)).to.equal(0n);
    expect(() => evalLocation('reg3', ctx)).to.throw(/not known/);
    expect(functionLocals('vfs_read')!.map((v) => `${v.kind} ${v.name} ${v.loc.k}`)).to.deep.equal([
      'P file expr', 'P buf expr', 'P count expr', 'P pos expr', 'V ret unavailable']);
  });
});
