/**
 * Loadable modules as on the real Debian 12 box. Expected values come from the real guest (the
 * recorder's snapshot of it with systemd and the model's services running: its /proc/modules and
 * /proc/kallsyms in data/recordings/system.json.gz) and from Debian's stap 4.8 resolving against the
 * -dbg vmlinux and modules (scripts/kernel-data/stap-oracle-tree.sh + real-stap -p2/-l/-L).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';
import * as fs from 'fs';
import * as zlib from 'zlib';
import { loadedModules, knownModules, lookupAddr, symbolModule, symbolName, matchFunctions, kallsymsLookupName, moduleAt, addrHex } from '../../src/kernel/kallsyms';
import { matchInlined } from '../../src/kernel/inline_sites';
import { kconfig } from '../../src/kernel/config';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
function stap(...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'latin1', timeout: 90000 });
}

describe('kernel modules (as the real guest loads them)', function () {
  this.timeout(90000);

  it('are the 25 modules of the guest\'s /proc/modules, at its addresses and sizes', () => {
    const mods = loadedModules();
    // /proc/modules lists the newest first; the data keeps load order
    expect(mods.map((m) => m.name).reverse()).to.deep.equal([
      'loop', 'fuse', 'dm_mod', 'efi_pstore', 'configfs', 'qemu_fw_cfg', 'ip_tables', 'x_tables', 'autofs4',
      'ext4', 'crc16', 'mbcache', 'jbd2', 'sd_mod', 't10_pi', 'crc64_rocksoft', 'crc_t10dif', 'crc64',
      'crct10dif_common', 'ahci', 'libahci', 'libata', 'scsi_mod', 'scsi_common', 'crc32c_generic',
    ]);
    const ext4 = mods.find((m) => m.name === 'ext4')!;
    // "ext4 983040 1 - Live 0xffffffffc034b000" in the recorded boot
    expect(ext4.size).to.equal(983040);
    expect(addrHex(ext4.base)).to.equal('ffffffffc034b000');
    expect(ext4.refcnt).to.equal(1);
    const libata = mods.find((m) => m.name === 'libata')!;
    expect(libata.usedBy).to.deep.equal(['ahci', 'libahci']);
    expect(libata.size).to.equal(409600);
    // installed, not loaded: resolvable from the -dbg .ko, not in /proc/modules
    expect(mods.some((m) => m.name === 'nfs')).to.equal(false);
    expect(knownModules().find((m) => m.name === 'nfs')!.loaded).to.equal(false);
  });

  it('their symbols are the guest\'s /proc/kallsyms lines, text and data, found by address', () => {
    const a = kallsymsLookupName('ext4_file_read_iter')!;
    const p = lookupAddr(a + 0x10)!;
    expect(symbolName(p.id)).to.equal('ext4_file_read_iter');
    expect(symbolModule(p.id)).to.equal('ext4');
    expect(moduleAt(a)!.name).to.equal('ext4');
    // a module data symbol resolves too (find_kallsyms_symbol searches the whole core)
    const d = kallsymsLookupName('__this_module')!;
    expect(symbolModule(lookupAddr(d)!.id)).to.not.equal('');
  });

  it('kernel.function matches vmlinux only; module("M").function the module\'s functions', () => {
    expect(matchFunctions('ext4_file_read_iter', 'kernel')).to.deep.equal([]);
    expect(matchFunctions('ext4_file_read_iter', 'ext4')).to.have.length(1);
    expect(matchFunctions('ext4_file_read_iter', 'ext*')).to.have.length(1);
    expect(matchFunctions('vfs_read', 'ext4')).to.deep.equal([]);
    let r = stap('-l', 'kernel.function("ext4_file_read_iter")');
    expect(r.stdout).to.equal('');
    r = stap('-l', 'module("ext4").function("ext4_file_read_iter")');
    expect(r.stdout).to.equal('module("ext4").function("ext4_file_read_iter@fs/ext4/file.c:130")\n');
    // a module glob resolves to the module's own name; inline instances are listed (stap 4.8)
    r = stap('-l', 'module("ext*").function("*read_iter")');
    expect(r.stdout).to.equal([
      'module("ext4").function("ext4_dax_read_iter@fs/ext4/file.c:102")',
      'module("ext4").function("ext4_dio_read_iter@fs/ext4/file.c:69")',
      'module("ext4").function("ext4_file_read_iter@fs/ext4/file.c:130")', ''].join('\n'));
    // "kernel" is not a module
    r = stap('-l', 'module("kernel").function("vfs_read")');
    expect(r.stdout).to.equal('');
    r = stap('-L', 'module("sd_mod").function("sd_init_command")');
    expect(r.stdout).to.equal('module("sd_mod").function("sd_init_command@drivers/scsi/sd.c:1319") $cmd:struct scsi_cmnd*\n');
  });

  it('module inline instances come from the module DWARF (crc16_byte inlined in crc16)', () => {
    const [f] = matchInlined({ func: 'crc16_byte' }, 'crc16');
    expect(f.file).to.equal('include/linux/crc16.h');
    expect(f.line).to.equal(22);
    // stap: pc=<crc16:crc16+17>
    expect(f.instances.map((i) => `${symbolName(i.caller)}+${i.addr - kallsymsLookupName('crc16')!}`)).to.deep.equal(['crc16+17']);
    expect(matchInlined({ func: 'crc16_byte' })).to.deep.equal([]);
  });

  it('installed-but-unloaded modules have their inline instances too (list_del_init in lockd)', () => {
    // real-stap -p2 with the -dbg lockd.ko (stap-oracle-tree.sh + the UNLOADED modules):
    // four instances, pc=<lockd:nlmsvc_free_block+33>, <lockd:nlmsvc_insert_block_locked+49>,
    // <lockd:nlmsvc_unlink_block+68>, <lockd:reclaimer+437>; -L: $entry:struct list_head*
    const [f] = matchInlined({ func: 'list_del_init' }, 'lockd');
    expect(`${f.file}:${f.line}`).to.equal('include/linux/list.h:211');
    const at = f.instances.map((i) => `${symbolName(i.caller)}+${i.addr - kallsymsLookupName(symbolName(i.caller))!}`).sort();
    expect(at).to.deep.equal(['nlmsvc_free_block+33', 'nlmsvc_insert_block_locked+49', 'nlmsvc_unlink_block+68', 'reclaimer+437']);
    const r = stap('-L', 'module("nfsd").function("read_sequnlock_excl")');
    expect(r.stdout).to.equal('module("nfsd").function("read_sequnlock_excl@include/linux/seqlock.h:1066") $sl:seqlock_t*\n');
    // a qualified pointer parameter keeps its pointee (stap: `$p:char* const`; BTF has no qualifiers)
    const s = stap('-L', 'module("nfsd").function("strscpy").inline');
    expect(s.stdout).to.contain('$p:char*');
  });

  it('kprobe.function is vmlinux only; kprobe.module keeps its pp as written', () => {
    let r = stap('-l', 'kprobe.function("ext4_file_read_iter")');
    expect(r.stdout).to.equal('');
    r = stap('-l', 'kprobe.module("ext4").function("ext4_file_read_iter")');
    expect(r.stdout).to.equal('kprobe.module("ext4").function("ext4_file_read_iter")\n');
    r = stap('-l', 'kprobe.module("ext4").function("ext4_file_read_it*")');
    expect(r.stdout).to.equal('kprobe.module("ext4").function("ext4_file_read_it*")\n');
  });

  it('CONFIG_EXT4_FS is "m" (Debian\'s config)', () => {
    expect(kconfig('CONFIG_EXT4_FS')).to.equal('m');
    const r = stap('-e', '%( CONFIG_EXT4_FS == "m" %? probe begin { println("module"); exit() } %: probe begin { println("builtin"); exit() } %)');
    expect(r.stdout).to.equal('module\n');
  });

  it('a module probe fires with probemod, modname, symname and a [ext4] backtrace frame', () => {
    const r = stap('-c', 'cat /etc/hostname', '-e',
      'probe module("ext4").function("ext4_file_read_iter") { printf("%s %s %s %s\\n", probefunc(), probemod(), modname(addr()), symname(addr())); print_backtrace(); exit() }');
    const lines = r.stdout.split('\n');
    expect(lines[0]).to.equal('ext4_file_read_iter ext4 ext4 ext4_file_read_iter');
    expect(lines[1]).to.match(/^ 0xffffffffc0[0-9a-f]{6} : ext4_file_read_iter\+0x0\/0x[0-9a-f]+ \[ext4\]$/);
    // the first read of an ext4 file is the exec's own (prepare_binprm's kernel_read of the ELF header
    // of cat, the recorded execve tree): __kernel_read calls the read_iter as vfs_read does
    expect(lines[2]).to.match(/: __kernel_read\+0x[0-9a-f]+\/0x[0-9a-f]+ \[kernel\]$/);
  });

  it('/proc/modules is the guest\'s text, byte for byte; /proc/kallsyms has its module lines', () => {
    // data/recordings/system.json.gz: the recorder's cat of the real guest's /proc/modules and the
    // module lines of its /proc/kallsyms (systemd's BPF programs, "[bpf]", are not modules here;
    // x_tables' per-cpu xt_recseq is at the guest's percpu offset, not modelled)
    const sys = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'data', 'recordings', 'system.json.gz'))).toString('latin1'));
    const r = spawnSync(process.execPath, [cli, '-c', 'sh -c "cat /proc/modules; grep -F \'[\' /proc/kallsyms"', '-e', 'probe timer.s(1000) { exit() }'], { encoding: 'latin1' });
    const out = r.stdout as string;
    expect(out.slice(0, sys.modules.length)).to.equal(sys.modules);
    const mineLines = out.slice(sys.modules.length).split('\n').filter(Boolean);
    const mine = new Set(mineLines);
    const real = (sys.kallsyms.modules as string).split('\n').filter((l) => l && !l.endsWith('[bpf]') && !l.includes(' xt_recseq\t'));
    expect(real.filter((l) => !mine.has(l))).to.deep.equal([]);
    expect(mineLines.length).to.equal(real.length + 1); // + x_tables' xt_recseq
  });
});
