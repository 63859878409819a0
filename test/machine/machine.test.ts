import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { pathNames, pathItems } from '../../src/machine/paths/dsl';
import { functionId, FtraceOps, registerFtraceFunction, unregisterFtraceFunction, ftraceSetFilter, resetFtrace } from '../../src/kernel/ftrace';
import { findEvent, tracepoint, tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';
import { symbolName, lookupAddr, isFunction } from '../../src/kernel/kallsyms';
import { parseShell } from '../../src/machine/userland/shell';
import { hookDefined, condDefined } from '../../src/machine/paths/semantics';
import { matchInlined } from '../../src/kernel/inline_sites';
import { modelKey } from '../../src/machine/paths/model';

// the kernel's semantics (hooks, conditions) as a Machine installs them
installKernelSemantics();

describe('machine: path data', () => {
  it('every function in every path is a 6.1 text symbol and every tracepoint exists', () => {
    const bad: string[] = [];
    for (const p of pathNames()) {
      for (const it of pathItems(p)) {
        if (it.startsWith('@')) {
          const [sys, ev] = it.slice(1).split(':');
          if (!(ev ? findEvent(sys, ev) : tracepoint(sys))) bad.push(`${p}: ${it}`);
        } else if (it.startsWith('%')) { if (!hookDefined(it.slice(1))) bad.push(`${p}: hook ${it}`); }
        else if (it.startsWith('?')) { if (!condDefined(it.slice(it[1] === '!' ? 2 : 1))) bad.push(`${p}: cond ${it}`); }
        else if (it.startsWith('&')) { if (!modelKey(it.slice(1))) bad.push(`${p}: no recording has ${it}`); }
        else if (it.startsWith('+')) {
          // an inline instance: the function has DWARF instances, one called from each line given
          const [name, lines] = it.slice(1).split(':');
          const insts = matchInlined({ func: name }).flatMap((f) => f.instances);
          if (!insts.length) bad.push(`${p}: inline ${it}`);
          for (const l of lines ? lines.split(',').map(Number) : []) {
            if (!insts.some((i) => i.callLine === l)) bad.push(`${p}: inline ${it} line ${l}`);
          }
        }
        else { const id = functionId(it); if (id < 0 || !isFunction(id)) bad.push(`${p}: ${it}`); }
      }
    }
    expect(bad).to.deep.equal([]);
  });
});

describe('machine: shell and programs', () => {
  const m = new Machine({ seed: 7 });
  it('parses pipes, redirections, and-or lists', () => {
    const l = parseShell('a | b > f 2>&1 && c || d; e', () => '');
    expect(l).to.have.length(2);
    expect(l[0].first.cmds).to.have.length(2);
    expect(l[0].first.cmds[1].redirs[0]).to.deep.equal({ fd: 1, op: '>', target: 'f' });
    expect(l[0].rest.map((r) => r.op)).to.deep.equal(['&&', '||']);
  });
  it('echo, cat, ls, grep, exit statuses, $$', () => {
    const r = m.run('echo hi; cat /etc/hostname; ls /usr/src/app; grep -c scheduler /home/user/notes.txt; false || echo no; echo $$');
    expect(r.status).to.equal(0);
    // ls on a terminal prints columns (ls -C: coreutils ls.c isatty(1))
    expect(r.out).to.equal(`hi\ndebian\nMakefile  main.c  util.c\n1\nno\n${r.pid}\n`);
    expect(m.run('false').status).to.equal(1);
    expect(m.run('nosuchcmd').status).to.equal(127);
  });
  it('files persist; redirections, globs, pipes, mv/cp/rm/mkdir', () => {
    const r = m.run('mkdir /tmp/d && echo abc > /tmp/d/x.txt && echo def >> /tmp/d/x.txt && cp /tmp/d/x.txt /tmp/d/y.txt && mv /tmp/d/y.txt /tmp/d/z.txt && ls /tmp/d/*.txt && cat /tmp/d/x.txt | grep e | wc -l');
    expect(r.out).to.equal('/tmp/d/x.txt  /tmp/d/z.txt\n1\n');
    expect(m.run('rm /tmp/d/x.txt; ls /tmp/d').out).to.equal('z.txt\n');
  });
  it('dd reports records and bytes; xxd dumps', () => {
    const r = m.run('dd if=/dev/zero of=/tmp/z bs=4096 count=16 2>&1');
    expect(r.out).to.match(/^16\+0 records in\n16\+0 records out\n65536 bytes \(66 kB, 64 KiB\) copied, /);
    expect(m.run('echo hello | xxd').out).to.equal('00000000: 6865 6c6c 6f0a                           hello.\n');
  });
  it("dd's statistics as coreutils 9.1 prints them: sizes, %g seconds, the rate, status=noxfer and none", () => {
    // forms checked with Debian 12's dd on this host (head -c N /dev/zero | dd of=/dev/null bs=100k):
    // "1 byte copied, 0.0129755 s, 0.1 kB/s", "999999 bytes (1.0 MB, 977 KiB) copied, 0.00461761 s, 217 MB/s"
    const last = (n: number) => m.run(`head -c ${n} /dev/zero | dd of=/dev/null bs=100k 2>&1 | tail -1`).out;
    expect(last(1)).to.match(/^1 byte copied, \d\.\d+(e-\d\d)? s, \d+\.\d (k|M)B\/s\n$/);
    expect(last(999)).to.match(/^999 bytes copied, /);
    expect(last(1000)).to.match(/^1000 bytes \(1\.0 kB\) copied, /);
    expect(last(9999)).to.match(/^9999 bytes \(10 kB, 9\.8 KiB\) copied, /);
    expect(last(999999)).to.match(/^999999 bytes \(1\.0 MB, 977 KiB\) copied, [0-9.e-]+ s, (\d\d?\.\d|\d{3}) [kMG]B\/s\n$/);
    expect(m.run('dd if=/dev/zero of=/tmp/q count=3 status=noxfer 2>&1').out).to.equal('3+0 records in\n3+0 records out\n');
    expect(m.run('dd if=/dev/zero of=/tmp/q count=3 status=none 2>&1; echo $?').out).to.equal('0\n');
  });
  it("ls -lh sizes: rounded up, a size that rounds up to 1024 moves to the next unit (gnulib's human_readable)", () => {
    // Debian 12's ls -lh on this host: 1048000 bytes -> 1.0M, 1047552 bytes -> 1023K, 10200 bytes -> 10K
    const size = (bs: number, count: number) =>
      m.run(`dd if=/dev/zero of=/tmp/h bs=${bs} count=${count} 2>/dev/null; ls -lh /tmp/h`).out.split(/ +/)[4];
    expect(size(1000, 1048)).to.equal('1.0M');
    expect(size(1023, 1024)).to.equal('1023K');
    expect(size(1020, 10)).to.equal('10K');
  });
  it("ls -l of a procfs link (st_size 0) reads it with gnulib's 128-byte buffer, a longer target with a doubled one", () => {
    // Debian 12 on this host: strace ls -l /proc/self/exe -> readlink("/proc/self/exe", "/usr/bin/ls", 128) = 11
    const l = m.run('ls -l /proc/self/exe /proc/self/cwd').out.split('\n');
    expect(l[0]).to.match(/^lrwxrwxrwx 1 root root 0 .* \/proc\/self\/cwd -> \/root$/);
    expect(l[1]).to.match(/ \/proc\/self\/exe -> \/usr\/bin\/ls$/);
    const long = `/tmp/${'d'.repeat(200)}`;
    expect(m.run(`mkdir ${long} && cd ${long} && ls -l /proc/self/cwd`).out).to.match(new RegExp(`-> ${long}\\n$`));
  });
  it('sleep advances virtual time; kill of a sleeper', () => {
    const t0 = m.now;
    m.run('sleep 2');
    expect(m.now - t0).to.be.greaterThan(2e9);
  });
});

describe('machine: scheduler, processes, determinism', () => {
  it('fairness: two CPU hogs on one CPU share it', () => {
    const m = new Machine({ seed: 3, cpus: 1, defaultSystem: true });
    m.procs.programs.set('/usr/bin/hog', function* (u) { for (;;) yield* u.cpu(1e6); });
    m.fs.createFile('/usr/bin/hog', 'ELF', 0o755);
    const a = m.spawnShell('hog', () => undefined);
    const b = m.spawnShell('hog', () => undefined);
    m.runFor(1e9);
    const ta = [...m.procs.tasks.values()].filter((t) => t.comm === 'hog');
    expect(ta).to.have.length(2);
    const [x, y] = ta.map((t) => t.sumExecRuntime);
    expect(x / y).to.be.within(0.8, 1.25);
    expect(x + y).to.be.greaterThan(0.9e9);
    void a; void b;
  });
  it('byte-identical runs for the same seed', () => {
    const run = () => { const m = new Machine({ seed: 11 }); const r = m.run('ls /etc; sleep 0.1; ps -e | wc -l'); return `${r.out}|${m.now}|${m.cpus.map((c) => c.switches).join(',')}`; };
    expect(run()).to.equal(run());
  });
  it('kswapd swapping anon pages out: pageout fires mm_vmscan_write_folio after swap_writepage', () => {
    const m = new Machine({ seed: 9, memMB: 96 });
    let written = 0;
    const wf = () => { written++; };
    const op = new FtraceOps('pageout_ops', () => { pageouts++; });
    let pageouts = 0;
    ftraceSetFilter(op, 'swap_writepage', false);
    registerFtraceFunction(op);
    tracepointProbeRegister('mm_vmscan_write_folio', wf, null);
    m.procs.programs.set('/usr/bin/hog', function* (u) { yield* u.touch('heap', 0, 30000, true); yield* u.nanosleep(30e9); return 0; });
    m.fs.createFile('/usr/bin/hog', 'ELF', 0o755);
    m.run('swapon -a');
    m.spawnShell('hog', () => undefined);
    m.runFor(1e9);
    tracepointProbeUnregister('mm_vmscan_write_folio', wf, null);
    unregisterFtraceFunction(op);
    expect(written).to.be.greaterThan(100).and.to.equal(pageouts);
  });
  it('context switches fire sched_switch through the probe array', () => {
    const m = new Machine({ seed: 2 });
    let n = 0;
    const f = () => { n++; };
    tracepointProbeRegister('sched_switch', f, null);
    m.runFor(0.5e9);
    tracepointProbeUnregister('sched_switch', f, null);
    expect(n).to.be.greaterThan(10);
  });
});

describe('machine: seeds through the tracing machinery', () => {
  afterEach(() => resetFtrace());
  it('seed 002: block_hasher pread goes vfs_read -> filemap_read -> block layer', () => {
    const m = new Machine({ seed: 5 });
    const parents = new Map<string, number>();
    const op = new FtraceOps('test_ops', (ip, parentIp) => {
      const p = lookupAddr(parentIp);
      const k = `${symbolName(lookupAddr(ip)!.id)}<-${p ? symbolName(p.id) : '?'}`;
      parents.set(k, (parents.get(k) ?? 0) + 1);
    });
    for (const g of ['vfs_read', 'filemap_read', 'submit_bio', 'blk_mq_start_request', 'ksys_pread64', 'bio_endio']) ftraceSetFilter(op, g, false);
    registerFtraceFunction(op);
    const r = m.run('block_hasher -d /dev/sda -b 1048576 -t 4 -n 4');
    unregisterFtraceFunction(op);
    expect(r.status).to.equal(0);
    expect(parents.get('vfs_read<-ksys_pread64')).to.be.greaterThan(15);
    expect(parents.get('filemap_read<-blkdev_read_iter')).to.be.greaterThan(15);
    expect(parents.get('submit_bio<-read_pages')).to.be.greaterThan(0);
    expect(parents.get('bio_endio<-blk_update_request')).to.be.greaterThan(0);
  });
  it('seed 000: swapon -a then xxd over a big file under memory pressure: *swap* functions and parents', () => {
    const m = new Machine({ seed: 9, memMB: 96 });
    m.fs.createFile('/root/big.bin', { size: 12 << 20, gen: (o, l) => new Uint8Array(l).fill(o & 255) });
    const hits = new Map<string, number>();
    const op = new FtraceOps('swap_ops', (ip, parentIp) => {
      const p = lookupAddr(parentIp);
      const k = `${symbolName(lookupAddr(ip)!.id)} <-${p ? symbolName(p.id) : '?'}`;
      hits.set(k, (hits.get(k) ?? 0) + 1);
    });
    ftraceSetFilter(op, '*swap*', false);
    registerFtraceFunction(op);
    // a memory hog keeps anon memory high so reclaim must swap
    m.procs.programs.set('/usr/bin/hog', function* (u) { yield* u.touch('heap', 0, 15000, true); yield* u.nanosleep(30e9); yield* u.touch('heap', 0, 15000, false); return 0; });
    m.fs.createFile('/usr/bin/hog', 'ELF', 0o755);
    m.spawnShell('hog', () => undefined);
    m.runFor(0.2e9);
    const r = m.run('swapon -a; xxd < /root/big.bin | tail -n 2; cat /proc/swaps', 120e9);
    unregisterFtraceFunction(op);
    expect(r.out).to.match(/\/swapfile\s+file/);
    const keys = [...hits.keys()];
    expect(keys).to.include('__x64_sys_swapon <-x64_sys_call');
    expect(keys).to.include('free_pages_and_swap_cache <-tlb_batch_pages_flush');
    expect(keys.some((k) => k.startsWith('free_swap_cache <-free_pages_and_swap_cache'))).to.equal(true);
  });
});
