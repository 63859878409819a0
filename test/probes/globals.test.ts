/**
 * @var of kernel globals: resolution rules and messages as Debian's stap 4.8 gives them with the
 * -dbg vmlinux (scripts/kernel-data/stap-oracle-tree.sh + ../shared/tools/real-stap -p2).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { findGlobal, globalBtfType, dwarfTypeToBtf } from '../../src/kernel/globals';
import { btfTypeName, btfSizeof } from '../../src/kernel/btf';
import { addrHex, kallsymsLookupName } from '../../src/kernel/kallsyms';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
function p2(script: string): { out: string; err: string; status: number | null } {
  const r = spawnSync(process.execPath, [cli, '-p2', '-e', script], { encoding: 'latin1', timeout: 60000 });
  return { out: r.stdout, err: r.stderr, status: r.status };
}
const firstError = (s: string) => (/semantic error: [^\n]*/.exec(s) ?? [''])[0];

describe('kernel globals (@var)', function () {
  this.timeout(60000);

  it('come from the -dbg DWARF: address, type and compile unit', () => {
    const g = findGlobal('pid_max')!;
    expect(g.cu).to.equal('kernel/pid.c');
    expect(g.addr).to.equal(kallsymsLookupName('pid_max'));
    expect(btfTypeName(globalBtfType(g)!)).to.equal('int');
    // avenrun is defined in kernel/sched/loadavg.c, compiled as part of build_utility.c
    expect(findGlobal('avenrun')!.cu).to.equal('kernel/sched/build_utility.c');
    expect(btfTypeName(globalBtfType(findGlobal('avenrun')!)!)).to.equal('long unsigned int [3]');
    // jiffies only exists as an extern declaration (a linker alias of jiffies_64)
    expect(addrHex(findGlobal('jiffies')!.addr)).to.equal(addrHex(kallsymsLookupName('jiffies')!));
    expect(findGlobal('sys_tz', 'time.c')!.cu).to.equal('kernel/time/time.c');
    expect(findGlobal('avenrun', 'loadavg.c')).to.equal(null);
    // array / pointer types BTF lacks are derived
    expect(btfSizeof(dwarfTypeToBtf('kmem_cache *[4][14]')!)).to.equal(4 * 14 * 8);
    expect(btfTypeName(dwarfTypeToBtf('const const char *const[8]')!)).to.equal('char *[8]'); // qualifiers dropped
  });

  it('resolve in the probe\'s module, or the module given; elsewhere they are unresolved', () => {
    expect(p2('probe kernel.function("vfs_read") { println(@var("jiffies")) }').status).to.equal(0);
    expect(p2('probe begin { println(@var("jiffies", "kernel")) }').status).to.equal(0);
    expect(p2('probe kernel.function("vfs_read") { println(@var("init_task")->pid) }').status).to.equal(0);
    expect(firstError(p2('probe begin { println(@var("jiffies")) }').err))
      .to.equal("semantic error: unresolved @var() expression: operator '@var' at <input>:1:23");
    expect(firstError(p2('probe timer.s(1) { println(@var("jiffies")) }').err))
      .to.equal("semantic error: unresolved @var() expression: operator '@var' at <input>:1:28");
    expect(firstError(p2('probe kernel.function("vfs_read") { println(@var("nosuch")) }').err))
      .to.equal("semantic error: unable to find global 'nosuch' in kernel: operator '@var' at <input>:1:45");
    expect(firstError(p2('probe kernel.function("vfs_read") { println(@var("avenrun@loadavg.c")[0]) }').err))
      .to.equal("semantic error: unable to find global 'avenrun' in kernel, in loadavg.c: operator '@var' at <input>:1:45");
    // a struct read whole: without @cu stap reports the search failing
    expect(firstError(p2('probe kernel.function("vfs_read") { println(@var("init_task")) }').err))
      .to.equal("semantic error: unable to find global 'init_task' in kernel: operator '@var' at <input>:1:45");
    expect(firstError(p2('probe module("ext4").function("ext4_file_read_iter") { println(@var("jiffies")) }').err))
      .to.equal("semantic error: unable to find global 'jiffies' in ext4: operator '@var' at <input>:1:64");
    expect(p2('probe module("ext4").function("ext4_file_read_iter") { println(@var("jiffies", "kernel")) }').status).to.equal(0);
    // totalram_pages is an inline function in 6.1; the variable is _totalram_pages
    expect(p2('probe kernel.function("vfs_read") { println(@var("totalram_pages")) }').status).to.equal(1);
  });
});
