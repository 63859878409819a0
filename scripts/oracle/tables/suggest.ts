/**
 * `probe point mismatch (similar: ...)`: misspelled probe points of every family and alias level
 * (begin/end/error/never, timer, kernel, module, kprobe, process, procfs, netfilter, perf, the
 * syscall flavours, tapset aliases, nested aliases, wildcards), failing points inside alias bodies,
 * suffixes of aliases whose points resolve nothing, the script's own aliases among the names
 * suggested; and the other `similar:` lists (unresolved functions, never-assigned variables).
 * stap makes each list with util.cxx's levenshtein_suggest (src/suggest.ts).
 */
import { OracleCase, Table, p2 } from '../cases';

/** Misspelled (or unknown) points, each at -p2 as `probe P {}`. */
const POINTS = [
  // the root: families and tapset alias roots (internal `_` ones included)
  'xyz', 'begn', 'ends', 'eror', 'nevr', 'timers', 'kernl', 'modul', 'proces', 'procfss', 'netfiltr', 'perff', 'syscal',
  'kprobes', 'vfss', 'ioblok', 'schedulr', 'tcpp', 'nd_syscal', 'dw_syscal', 'tp_sycall', 'Begin', 'TIMER', 'a', 'abcdefghijklmnopqrstuvwxyz',
  'hwbkpt', 'java', 'python3', 'input.chr', 'oneshoot',
  // begin/end/error/never take no suffix
  'begin.xyz', 'end(1).xyz', 'error.xyz', 'never.xyz',
  // timer
  'timer.xyz', 'timer.S', 'timer.Hz', 'timer.m', 'timer.mss', 'timer.msecs', 'timer.sex', 'timer.jiffie', 'timer.profil', 'timer.u',
  'timer.nss', 'timer.ab', 'timer.sc', 'timer.MSEC', 'timer.nsex', 'timer.hhz', 'timer.profile.tik', 'timer.s(1).randomise(1)',
  // kernel, module, kprobe
  'kernel.badthing', 'kernel.fun', 'kernel.funtion("f")', 'kernel.trac("x")', 'kernel.Data("x").write', 'kernel.st', 'kernel.marks',
  'kernel.data("x").xyz', 'kernel.data(1).lenght(4).write', 'kernel.mark("x").fromat("y")', 'module("m").xyz', 'module("m").fnction("f")',
  'kprobe.xyz', 'kprobe.module("m").xyz', 'kprobe.statment(1).absolute',
  // process
  'process.xyz', 'process.fnction("f")', 'process("x").xyz', 'process("x").begn', 'process("x").lbrary("l").function("f")',
  'process("x").library("l").xyz', 'process(1).thred.begin', 'process("x").thread.xyz', 'process("x").Mark("m")', 'process("x").provider("p").xyz',
  // procfs
  'procfs.xyz', 'procfs("x").xyz', 'procfs("x").reed', 'procfs("x").umask(1).xyz', 'procfs.umsk(1).read',
  // netfilter
  'netfilter.xyz', 'netfilter.hook("x").xyz', 'netfilter.pf("x").xyz', 'netfilter.ip.xyz', 'netfilter.arp.xyz', 'netfilter.ipv4.xyz',
  'netfilter.ipv6.pre_routin', 'netfilter.hok("x").pf("y")',
  // perf
  'perf.xyz', 'perf.sw.xyz', 'perf.hw.xyz', 'perf.hw_cache.xyz', 'perf.hw_cache.l1d.xyz', 'perf.type(1).xyz', 'perf.sw.cpu_clok',
  // the syscall flavours
  'syscall.xyz', 'syscall.opn', 'syscall.read.retrn', 'syscall.read.return.xyz', 'nd_syscall.xyz', 'nd_syscall.raed', 'tp_syscall.xyz',
  'dw_syscall.xyz', 'nd1_syscall.xyz', 'nd2_syscall.xyz', 'syscall_any.xyz', '__syscall.xyz', 'syscall.exit.xyz',
  // tapset aliases
  'vfs.xyz', 'vfs.reed', 'vfs.read.xyz', 'scheduler.xyz', 'scheduler.cpu_of', 'ioblock.xyz', 'signal.xyz', 'signal.send.xyz', 'tcp.xyz',
  'udp.xyz', 'nfs.xyz', 'nfs.fop.xyz', 'nfs.proc.xyz', 'nfsd.xyz', 'sunrpc.xyz', 'socket.xyz', 'netdev.xyz', 'kprocess.xyz', 'vm.xyz',
  'tty.xyz', 'irq_handler.xyz', 'workqueue.xyz', 'scsi.xyz', 'ipmib.xyz', 'linuxmib.xyz', 'tcpmib.xyz', 'generic.xyz', 'generic.fop.xyz',
  'memory.xyz', 'softirq.xyz', 'ioscheduler.xyz', 'stap.xyz', 'python.xyz', 'json_data.xyz', 'prometheus.xyz', 'init.xyz',
  // wildcards: the text before the first `*` is compared
  'timer.x*', 'timer.*x', 'timer.x*y', 'timer.mse*x', 'kernel.x*', 'kernel.fu*x', 'kernel.*x*', 'procfs.x*', 'procfs.re**x', 'syscall.xyz*',
  'perf.*.xyz', 'kernel.*.xyz', 'vfs.*.xyz', '*.xyz', 'timer.*.xyz', 'timer.m*.xyz', 'x*', 'nfs.fop.x*',
];

/** Whole scripts: failing points inside alias bodies, alias suffixes, the script's own aliases. */
const SCRIPTS = [
  'probe a = timer.xyz {} probe a {}',
  'probe a = kernel.badthing {} probe a {}',
  'probe a = procfs("x").reed {} probe a {}',
  'probe a = netfilter.xyz {} probe a {}',
  'probe a = syscall.opn {} probe a {}',
  'probe a = vfs.reed {} probe b = a {} probe b {}',
  'probe a = begin, timer.xyz {} probe a {}',
  'probe a = timer.xyz? {} probe a {}',
  'probe a = timer {} probe a.xyz {}',
  'probe a = begin {} probe a.xyz {}',
  'probe a = begin? {} probe a.xyz {}',
  'probe a = begin?, end? {} probe a.xyz {}',
  'probe a = begin?, end? {} probe a.x* {}',
  'probe a = nosuch? {} probe a.xyz {}',
  'probe a = timer.s(1)? {} probe a.randomiz(1) {}',
  'probe a = b? {} probe b = c? {} probe a.q {}',
  'probe a.b = begin {} probe a.c {}',
  'probe a.b = begin {} probe a.c = end {} probe a.x* {}',
  'probe vfs.myown = begin {} probe vfs.myowm {}',
  'probe timer.xyz2 = begin {} probe timer.xyz {}',
  'probe xyzw = begin {} probe xyz {}',
  'probe a.b.c = begin {} probe a.b.d {}',
  'probe process.xyz {} probe begin {}',
  'probe process.function("f") {}',
  'probe process.begin.xyz {}',
  'probe kernel.mark("x") {}',
  'probe kernel.mark("x")?, begin {}',
  // the other similar: lists
  'probe begin { xyz() }',
  'probe begin { prinln(1) }',
  'probe begin { abcdefghij() }',
  'probe begin { execnam() }',
  'function foo() {} function fop() {} probe begin { fob() }',
  'global abc, abd, Abc probe begin { println(abc + abd) }',
  'global Abc, abc, x probe begin { x = Abc; println(abc) }',
  'global aaaaaaaaaaaaaaaaaaaaaaaaaa, b probe begin { b = 1; println(aaaaaaaaaaaaaaaaaaaaaaaaaa + b) }',
  'probe begin { zzzzzzzzzzzzzzz = 1; println(q) }',
  'probe begin { aB = 1; Ab = 2; println(ab) }',
  // an unresolved call suggests the functions resolved so far and the library's
  'function foo() {} probe begin { foo(); fob() }',
  'function foo() {} probe begin { fob() } probe end { foo() }',
  'function foo() { fob() } probe begin { foo() }',
  'function foo() {} function bar() { fob() } probe begin { bar() }',
  'global Abc, abc, abd probe begin { println(abc + abd) }',
];

export const suggest: Table = {
  name: 'suggest',
  about: 'probe point mismatch suggestions of every family and alias level, in alias bodies and suffixes; function and variable suggestions',
  // (kernel points are kept: the mismatch is decided before anything needs the kernel's debuginfo)
  environment: /debuginfo|perf probes not available|kbuild exited|typequery|6\.1\.0-fake|not available on this kernel|System\.map/,
  cases(): OracleCase[] {
    return [
      ...POINTS.map((pt, i) => p2(`pt:${i}`, `probe ${pt} {}`)),
      ...SCRIPTS.map((s, i) => p2(`script:${i}`, s)),
    ].map((c) => ({ ...c, similar: true }));
  },
};
