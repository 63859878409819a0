import { expect } from 'chai';
import { session, compileErr, list, task, cpu, fileNamed, resetKernel } from './helpers';
import { kcall, functionId, ftraceOpsList } from '../../src/kernel/ftrace';
import { functionTracerCount } from '../helpers/function_tracer';
import { kprobeTable } from '../../src/kernel/kprobes';
import { symbolAddr } from '../../src/kernel/kallsyms';
import { tracepoint, traceCall } from '../../src/kernel/tracepoint';
import { setBulkThreshold } from '../../src/probes/kernel_function';
import { kmem } from '../../src/kernel/memory';

const VFS_READ = functionId('vfs_read');

function read(ctx: ReturnType<typeof cpu>, file: number, count: number, ret = count, body?: () => void): number {
  return kcall(VFS_READ, ctx, [file, 0x7ffd0000, count, 0], () => {
    if (body) body();
    return ret;
  }, symbolAddr(functionId('ksys_read')) + 0x5d);
}

describe('probes: resolution and listing', () => {
  it('lists kernel.function with file:line and -L variables', () => {
    expect(list('kernel.function("vfs_read")', false)).to.deep.equal(['kernel.function("vfs_read@fs/read_write.c:450")']);
    expect(list('kernel.function("vfs_read")', true)).to.deep.equal([
      'kernel.function("vfs_read@fs/read_write.c:450") $file:struct file* $buf:char* $count:size_t $pos:loff_t*']);
    // stap 4.8 -L lists $return first (real-stap against the -dbg vmlinux)
    expect(list('kernel.function("vfs_read").return', true)).to.deep.equal([
      'kernel.function("vfs_read@fs/read_write.c:450").return $return:ssize_t $file:struct file* $buf:char* $count:size_t $pos:loff_t*']);
  });
  it('lists wildcards sorted, tracepoints with TP_PROTO args', () => {
    const l = list('kernel.function("vfs_re*")', false);
    expect(l.length).to.be.greaterThan(3);
    expect([...l].sort()).to.deep.equal(l);
    expect(list('kernel.trace("sched_switch")', true)).to.deep.equal([
      'kernel.trace("sched:sched_switch") $preempt:bool $prev:struct task_struct* $next:struct task_struct* $prev_state:unsigned int']);
    expect(list('kprobe.function("vfs_read").return', false)).to.deep.equal(['kprobe.function("vfs_read").return']);
  });
  it('skips the functions of freed init memory: .init.text and built-in .exit.text', () => {
    // stap 4.8 refuses kernel functions outside .text ("function %s is in blocklisted section");
    // exit_zbud (mm/zbud.c, built in) sits in .exit.text, between _einittext and __init_end
    expect(list('kernel.function("*zbud*")', false)).to.include('kernel.function("zbud_zpool_create@mm/zbud.c:539")');
    expect(list('kernel.function("*zbud*")', false).filter((l) => l.includes('exit_zbud'))).to.deep.equal([]);
    expect(list('kernel.function("*@mm/zbud.c")', false).filter((l) => /init_zbud|exit_zbud/.test(l))).to.deep.equal([]);
  });
  it('reports no match with similar functions / tracepoints', () => {
    expect(compileErr('probe kernel.function("vfs_rea") {}')).to.contain('semantic error: no match (similar functions: vfs_read');
    expect(compileErr('probe kernel.trace("sched_swich") {}')).to.contain('no match (similar tracepoints: sched_switch');
    expect(compileErr('probe kernel.function("vfs_read") { println($nosuch) }')).to.contain(
      "unable to find local 'nosuch', [man error::dwarf] in kernel, near pc 0xffffffff");
    expect(compileErr('probe kernel.function("vfs_read") { println($file->nosuch) }')).to.contain("unable to find member 'nosuch' for struct file (alternatives:");
    expect(compileErr('probe kernel.function("vfs_read") { println($return) }')).to.contain("unable to find local 'return'");
    expect(compileErr('probe begin { println($x) }')).to.contain('unresolved target-symbol expression');
  });
  it('autocast: typed values carry their type through locals, returns, = and ?:', () => {
    expect(compileErr('probe begin { s = (x = & @cast(0, "sockaddr_un")) -> sun_family; println(s, x->sun_path[0]) }')).to.equal('');
    expect(compileErr('function f(p) { return & @cast(p, "task_struct") } probe begin { println(f(0)->pid, @task(0)->tgid, task_current()->mm->map_count) }')).to.equal('');
    expect(compileErr('probe kernel.function("vfs_read") { f = $file; println(f->f_inode->i_ino, &f->f_pos) }')).to.equal('');
    // (real-stap -p2: an autocast on a value without a type)
    expect(compileErr('probe begin { x = 0; println(x->foo) }')).to.contain('unknown type in dereference');
    expect(compileErr('probe begin { x = & @cast(0, "sockaddr_un"); println(x->nope) }')).to.contain("unable to find member 'nope' for struct sockaddr_un");
    // two @cast modules give distinct types: the local carries none
    expect(compileErr(`probe begin {
      if (randint(2)) s = & @cast(0, "sockaddr_un", "<sys/un.h>"); else s = & @cast(0, "sockaddr_un", "<sys/socket.h><sys/un.h>")
      println(s->sun_family)
    }`)).to.contain("unknown type in dereference: operator '->'");
    expect(compileErr(`probe begin {
      if (randint(2)) s = & @cast(0, "sockaddr_un", "<sys/un.h>"); else s = & @cast(1, "sockaddr_un", "<sys/un.h>")
      println(s->sun_family)
    }`)).to.equal('');
  });
  it('autocast writes need guru mode', () => {
    expect(compileErr('probe begin { s = & @cast(0, "sockaddr_un"); s->sun_path[0] = 0 }')).to.contain("write not permitted; need stap -g: operator '->'");
  });
  it('@defined of an autocast is decided once the operand type is known', () => {
    expect(compileErr(`probe begin {
      x = & @cast(0, "struct block_device")
      if (@defined(x->bd_dev)) println(x->bd_dev) else println($no_such_var)
      if (!@defined(x->__bd_flags)) println(1) else println($no_such_var)
      println(@defined(task_current()->mm) ? 1 : $no_such_var)
    }`)).to.equal('');
  });
  it('@defined folds on target availability', () => {
    expect(compileErr('probe kernel.function("vfs_read") { println(@defined($count) ? 1 : 0, @defined($zz) ? 1 : 0) }')).to.equal('');
  });
});

describe('probes: registration and hits', () => {
  afterEach(resetKernel);
  const t = task(4242, 'cat');

  it('registers kprobes on ftrace and delivers hits with $params and context', async () => {
    let sawOps = false;
    let sawTable = false;
    const f = fileNamed('passwd');
    const r = await session(`probe kernel.function("vfs_read") {
      printf("%s %s %d %d %s %s %d\\n", pp(), execname(), pid(), $count, kernel_string($file->f_path->dentry->d_name->name), probefunc(), cpu())
    }`, () => {
      sawOps = ftraceOpsList().some((o) => o.name === 'kprobe_ftrace_ops');
      sawTable = kprobeTable().some((b) => b.some((p) => p.addr === symbolAddr(VFS_READ)));
      read(cpu(t, 1), f, 128);
      read(cpu(t, 1), f, 7);
    });
    expect(r.err).to.equal('');
    expect(sawOps).to.equal(true);
    expect(sawTable).to.equal(true);
    expect(r.out).to.equal(
      'kernel.function("vfs_read@fs/read_write.c:450") cat 4242 128 passwd vfs_read 1\n' +
      'kernel.function("vfs_read@fs/read_write.c:450") cat 4242 7 passwd vfs_read 1\n');
    expect(ftraceOpsList().some((o) => o.name === 'kprobe_ftrace_ops')).to.equal(false);
  });

  it('.return gives $return, entry values of params, @entry and is_return', async () => {
    const f = fileNamed('x');
    const r = await session(`probe kernel.function("vfs_read").return {
      printf("%d %d %d %d %s\\n", $return, $count, @entry($count * 2), is_return(), probe_type())
    }`, () => {
      read(cpu(t), f, 10, 3);
    });
    expect(r.out).to.equal('3 10 20 1 kretprobe\n');
  });

  it('@entry of a function call has its own action budget: the first return of a session has its entry values', async () => {
    const f = fileNamed('x');
    const r = await session(`function twice(x) { return x * 2 }
probe kernel.function("vfs_read").return {
      printf("%d %d\\n", @entry(twice($count)), @entry(gettimeofday_s()) > 0)
    }`, () => {
      read(cpu(t), f, 10, 3);
    });
    expect(r.out).to.equal('20 1\n');
  });

  it('counts agree: kernel.function == kprobe.function == function tracer', async () => {
    const f = fileNamed('x');
    const N = 57;
    const drive = () => { for (let i = 0; i < N; i++) read(cpu(t, i % 2), f, i); };
    const a = await session('global n probe kernel.function("vfs_read") { n++ } probe end { println(n) }', drive);
    const b = await session('global n probe kprobe.function("vfs_read") { n++ } probe end { println(n) }', drive);
    const c = await session('global n probe kernel.function("vfs_read").return { n++ } probe end { println(n) }', drive);
    const traced = functionTracerCount('vfs_read', drive);
    expect([a.out, b.out, c.out]).to.deep.equal([`${N}\n`, `${N}\n`, `${N}\n`]);
    expect(traced).to.equal(N);
  });

  it('wildcards over many functions use one fprobe ops with a filter hash', async () => {
    setBulkThreshold(4);
    let opsNames: string[] = [];
    try {
      const f = fileNamed('y');
      const r = await session('global n probe kernel.function("vfs_*") { n[ppfunc()]++ } probe end { foreach (k in n) printf("%s %d\\n", k, n[k]) }', () => {
        opsNames = ftraceOpsList().map((o) => o.name);
        read(cpu(t), f, 1);
        read(cpu(t), f, 1);
        kcall(functionId('vfs_write'), cpu(t), [], () => 0);
      });
      expect(opsNames).to.include('fprobe');
      expect(r.out).to.equal('vfs_read 2\nvfs_write 1\n');
    } finally {
      setBulkThreshold(256);
    }
  });

  it('maxactive misses become skipped probes', async () => {
    const f = fileNamed('z');
    const r = await session('probe kernel.function("vfs_read").return.maxactive(1) { printf("ret %d\\n", $return) }', () => {
      read(cpu(t), f, 1, 11, () => { read(cpu(t), f, 1, 22); });
    });
    expect(r.out).to.equal('ret 11\n');
    expect(r.err).to.contain('WARNING: Number of errors: 0, skipped probes: 1');
  });

  it('tracepoints deliver TP_PROTO args as $vars', async () => {
    const prev = { pid: 10, tid: 11, comm: 'bash' };
    const next = { pid: 20, tid: 21, comm: 'sshd' };
    const r = await session(`probe kernel.trace("sched_switch") {
      printf("%s %s %d %d %s %s\\n", pp(), kernel_string($prev->comm), $next->pid, $next->tgid, $$name, $$system)
    }`, () => {
      traceCall(tracepoint('sched_switch')!, false, prev, next, 0);
    });
    expect(r.err).to.equal('');
    expect(r.out).to.equal('kernel.trace("sched:sched_switch") bash 21 20 sched_switch sched\n');
  });

  it('pretty printing, $$parms, backtraces and faults', async () => {
    const f = fileNamed('pp');
    const r = await session(`probe kernel.function("vfs_read") {
      println($$parms)
      println($file->f_path->dentry->d_name$)
      print_backtrace()
      println(kernel_long(0))
    }`, () => { read(cpu(t), f, 5); });
    const lines = r.out.split('\n');
    expect(lines[0]).to.match(/^file=0xffff8881[0-9a-f]+ buf=0x7ffd0000 count=0x5 pos=0x0$/);
    expect(lines[1]).to.match(/^\{\.\{\.hash=0, \.len=2\}|^\{.*\.name="pp"\}$/);
    expect(lines[2]).to.match(/^ 0xffffffff[0-9a-f]{8} : vfs_read\+0x0\/0x[0-9a-f]+ \[kernel\]$/);
    expect(lines[3]).to.match(/^ 0xffffffff[0-9a-f]{8} : ksys_read\+0x5d\/0x[0-9a-f]+ \[kernel\]$/);
    expect(r.err).to.contain('ERROR: kernel long copy fault at 0x0 [man error::fault]');
  });

  it('autocast reads through a local and a function return', async () => {
    const r = await session(`function cur() { return & @cast(task_current(), "task_struct") }
    probe begin {
      t = task_current()
      printf("%d %d %s\\n", t->tgid == pid(), cur()->pid == tid(), kernel_string(t->comm))
      exit()
    }`, () => undefined);
    expect(r.err).to.equal('');
    expect(r.out).to.equal('1 1 stapio\n');
  });

  it('@cast and task_current() in a begin probe', async () => {
    const r = await session(`probe begin {
      t = task_current()
      printf("%d %d %s %s\\n", @cast(t, "task_struct", "kernel")->tgid, @cast(t, "task_struct")[0]->tgid == pid(), kernel_string(@cast(t, "task_struct")->comm), task_execname(t))
      exit()
    }`, () => undefined);
    expect(r.err).to.equal('');
    expect(r.out).to.match(/^\d+ 1 stapio stapio\n$/);
    void kmem;
  });
});
