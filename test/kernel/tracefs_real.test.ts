/**
 * tracefs against the real kernel: files whose contents do not depend on the run are compared
 * byte for byte with the recordings of Debian 12's 6.1.0-56 (test/fixtures/tracefs-real/, made
 * by scripts/tracefs/record.sh); formats of run-dependent files (trace headers, event formats,
 * error texts) are compared with the same lines of the recordings.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import { Tracefs } from '../../src/kernel/tracefs/tracefs';
import { walk, readAll, writeFile, PseudoNode } from '../../src/kernel/tracefs/vfs';
import { CpuContext } from '../../src/kernel/current';
import { resetFtrace } from '../../src/kernel/ftrace';
import { resetKprobes, setNumPossibleCpus } from '../../src/kernel/kprobes';
import { resetTracepoints } from '../../src/kernel/tracepoint';

const real = (name: string) => fs.readFileSync(path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'tracefs-real', name), 'latin1');

describe('tracefs files as the real 6.1 shows them', () => {
  const ctx: CpuContext = { cpu: 0, task: { pid: 1, tid: 1, comm: 'sh' } };
  let tfs: Tracefs;
  let root: PseudoNode;
  const who = { ctx };
  const cat = (p: string) => readAll(walk(root, p.split('/'))!, who) as string;
  const echo = (p: string, t: string, append = false) => writeFile(walk(root, p.split('/'))!, t, who, append);
  // the real guest: 4 CPUs (kretprobes' default maxactive max(10, 2 * cpus) = 10)
  before(() => { resetKprobes(); resetFtrace(); resetTracepoints(); setNumPossibleCpus(4); });
  beforeEach(() => {
    tfs = new Tracefs({ clock: () => 65048381000, ncpus: 2, current: () => ctx, kernelStack: () => [], task: () => undefined });
    root = tfs.root();
  });
  afterEach(() => { tfs.shutdown(); resetKprobes(); resetFtrace(); resetTracepoints(); });

  it('has the top directory, options/, per_cpu/cpuN/ and an instance\'s file set', () => {
    expect(walk(root, [])!.list!().slice().sort().join('\n') + '\n').to.equal(real('ls_top'));
    expect(walk(root, ['options'])!.list!().join('\n') + '\n').to.equal(real('ls_options'));
    expect(walk(root, ['per_cpu'])!.list!().concat(walk(root, ['per_cpu', 'cpu0'])!.list!()).join('\n') + '\n').to.equal(real('ls_per_cpu'));
    expect(walk(root, ['events', 'sched', 'sched_switch'])!.list!().join('\n') + '\n').to.equal(real('ls_event_dir'));
    expect(tfs.mkdirInstance('foo')).to.equal(0);
    const inst = walk(root, ['instances', 'foo'])!;
    const want = real('instances').split('\n');
    expect(inst.list!().slice().sort()).to.deep.equal(want.slice(1, want.indexOf('29')));
  });

  it('reads the pristine control files byte for byte', () => {
    for (const f of ['available_tracers', 'current_tracer', 'tracing_on', 'buffer_size_kb', 'buffer_total_size_kb', 'buffer_percent',
      'set_ftrace_filter', 'set_ftrace_notrace', 'set_graph_function', 'set_ftrace_pid', 'trace_options', 'tracing_max_latency',
      'tracing_thresh', 'max_graph_depth', 'stack_max_size', 'stack_trace', 'tracing_cpumask', 'saved_cmdlines_size', 'kprobe_events',
      'timestamp_mode', 'snapshot', 'events/enable', 'events/header_page', 'events/header_event', 'events/sched/enable',
      'events/sched/filter', 'events/sched/sched_switch/enable', 'events/sched/sched_switch/filter', 'events/sched/sched_switch/trigger',
      'events/sched/sched_switch/format', 'events/kmem/kmalloc/format', 'events/ftrace/function/format', 'trace', 'per_cpu/cpu0/trace',
      'README']) {
      // event ids apart: the real kernel numbers its modules' events too
      const id = (t: string) => t.replace(/^ID: \d+$/m, 'ID: X');
      expect(id(cat(f)), f).to.equal(id(real(`cat:${f.replace(/\//g, '__')}`)));
    }
  });

  it('keeps buffer_size_kb in whole pages once expanded', () => {
    expect(echo('current_tracer', 'foo\n')).to.equal(-22);
    const want = real('buffer_sizes').split('\n');
    expect(cat('buffer_size_kb')).to.equal('1410\n');
    echo('buffer_size_kb', '2048\n');
    expect([cat('buffer_size_kb'), cat('buffer_total_size_kb')]).to.deep.equal([`${want[1]}\n`, `${want[2]}\n`]);
    echo('per_cpu/cpu0/buffer_size_kb', '1000\n');
    expect([cat('buffer_size_kb'), cat('per_cpu/cpu0/buffer_size_kb')]).to.deep.equal([`${want[3]}\n`, `${want[4]}\n`]);
  });

  it('shows event filter errors with the caret and text of the real kernel', () => {
    const got: string[] = [];
    for (const f of ['prev_pid >< 1', 'nosuchfield == 1', '(prev_pid == 1', 'prev_comm < 3']) {
      expect(echo('events/sched/sched_switch/filter', f + '\n')).to.equal(-22);
      got.push(cat('events/sched/sched_switch/filter'));
    }
    const text = real('err_event_filter');
    for (const g of got) expect(text).to.contain(g);
  });

  it('parses the set_ftrace_filter grammar and lists probes as the real kernel', () => {
    const want = real('ftrace_filter_forms').split('\n');
    echo('set_ftrace_filter', 'vfs_read*\n');
    expect(cat('set_ftrace_filter').split('\n').slice(0, 3)).to.deep.equal(want.slice(0, 3));
    echo('set_ftrace_filter', 'ext4_file*:mod:ext4\n');
    expect(cat('set_ftrace_filter')).to.equal(want.slice(10, 17).join('\n') + '\n');
    echo('set_ftrace_filter', 'vfs_read:traceoff\n', true);
    echo('set_ftrace_filter', 'vfs_write:traceoff:4\n', true);
    echo('set_ftrace_filter', 'do_sys_openat2:stacktrace\n', true);
    expect(cat('set_ftrace_filter')).to.equal(want.slice(17, 27).join('\n') + '\n');
    echo('set_ftrace_filter', '!vfs_read:traceoff\n', true);
    echo('set_ftrace_filter', '!vfs_write:traceoff:0\n', true);
    echo('set_ftrace_filter', '!do_sys_openat2:stacktrace\n', true);
    expect(cat('set_ftrace_filter')).to.equal(want.slice(27, 34).join('\n') + '\n');
    echo('set_ftrace_filter', '\n');
    expect(cat('set_ftrace_filter')).to.equal('#### all functions enabled ####\n');
    echo('set_graph_function', 'vfs_read\n');
    echo('set_graph_function', 'vfs_write*\n', true);
    expect(cat('set_graph_function')).to.equal(real('graph_fn_forms').split('\n').slice(1, 4).join('\n') + '\n');
  });

  it('defines kprobe events with the real listing, format and kprobes/list', () => {
    expect(echo('kprobe_events', 'p:myprobe do_sys_openat2 dfd=%di filename=+0(%si):string flags=+16(%dx):x32\n')).to.equal(0);
    expect(echo('kprobe_events', 'r:myretprobe do_sys_openat2 $retval\n', true)).to.equal(0);
    expect(echo('kprobe_events', 'p:vfsr vfs_read $arg1 $arg3 +8(%sp) cnt=%dx:u32 sz=%dx:s16 $comm\n', true)).to.equal(0);
    expect(echo('kprobe_events', 'p vfs_write\n', true)).to.equal(0);
    expect(echo('kprobe_events', 'r:kprobes/wret vfs_write ret=$retval:s64\n', true)).to.equal(0);
    const want = real('kp_define');
    expect('rc=0\n' + cat('kprobe_events')).to.equal(want.slice(0, ('rc=0\n' + cat('kprobe_events')).length));
    // the formats, ids apart (the real kernel's modules registered events before these)
    const fmt = cat('events/kprobes/myprobe/format').replace(/^ID: \d+$/m, 'ID: X');
    expect(want.replace(/^ID: \d+$/gm, 'ID: X')).to.contain(fmt);
    expect(want.replace(/^ID: \d+$/gm, 'ID: X')).to.contain(cat('events/kprobes/vfsr/format').replace(/^ID: \d+$/m, 'ID: X'));
    const list = readAll(walk(tfs.debugfs(), ['kprobes', 'list'])!, who) as string;
    for (const l of list.split('\n').filter(Boolean)) expect(want).to.contain(l.replace(/^[0-9a-f]{16}/, (a) => a));
  });

  it('reports kprobe_events errors in error_log with the real texts and carets', () => {
    echo('kprobe_events', 'p:myp nosuch_function_xyz\n');
    echo('kprobe_events', 'p:myp vfs_read foo=%zz\n', true);
    echo('kprobe_events', 'r:myr vfs_read+4\n', true);
    echo('kprobe_events', 'p:myp vfs_read $retval\n', true);
    const strip = (s: string) => s.replace(/^\[[ 0-9.]+\] /gm, '');
    expect(strip(cat('error_log'))).to.equal(strip(real('err_kprobe').replace(/^(sh|rc)[^\n]*\n/gm, '')));
  });
});
