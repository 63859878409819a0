/**
 * Kernel-free probe points at pass 2 and in listings: begin/end/error/never with sequence
 * numbers, every timer with edge values, procfs forms, optional/sufficient markers, conditions,
 * user aliases (prologue, epilogue, both, suffixes, recursion, wildcards), -l/-L of them; and
 * the preprocessor's conditions and macros.
 */
import { OracleCase, Table, p2 } from '../cases';

const POINTS = [
  'begin', 'begin(0)', 'begin(-5)', 'begin(9223372036854775807)', 'begin(-9223372036854775808)', 'begin(9223372036854775808)', 'end(1)', 'error', 'error(-1)', 'never',
  'timer.s(1)', 'timer.s(0)', 'timer.s(-1)', 'timer.s(86400)', 'timer.s(86401)', 'timer.sec(1)', 'timer.ms(1)', 'timer.ms(0)', 'timer.msec(100)',
  'timer.us(99)', 'timer.us(100)', 'timer.usec(1000)', 'timer.ns(99999)', 'timer.ns(100000)', 'timer.nsec(1000000)', 'timer.ns(86400000000000)',
  'timer.ns(86400000000001)', 'timer.hz(0)', 'timer.hz(1)', 'timer.hz(-1)', 'timer.hz(1000000)', 'timer.jiffies(0)', 'timer.jiffies(1)',
  'timer.jiffies(1000000)', 'timer.jiffies(1000001)', 'timer.s(1).randomize(0)', 'timer.s(1).randomize(1)', 'timer.s(1).randomize(2)',
  'timer.s(1).randomize(-1)', 'timer.ms(10).randomize(5)', 'timer.jiffies(10).randomize(5)', 'timer.jiffies(10).randomize(11)',
  'timer.jiffies(10).randomize(-1)', 'timer.hz(10).randomize(1)', 'timer.s("1")', 'timer.s', 'timer.s()', 'timer', 'timer.x(1)',
  'timer.profile', 'timer.profile.tick', 'timer.s(1).x', 'timer.s(1).randomize', 'timer.ms(1.5)', 'timer.ms(0x10)',
  'procfs.read', 'procfs.write', 'procfs("x").read', 'procfs("x").write', 'procfs("a/b").read', 'procfs("").read', 'procfs("/x").read',
  'procfs("x/").read', 'procfs("x//y").read', 'procfs("..").read', 'procfs("x").read.maxsize(10)', 'procfs("x").read.maxsize(0)',
  'procfs("x").read.maxsize(-1)', 'procfs("x").umask(0).read', 'procfs("x").umask(0777).write', 'procfs("x").umask(1000).read',
  'procfs.umask(0).read', 'procfs("x")', 'procfs(1).read', 'procfs("x").write.maxsize(10)', 'procfs("x y").read', 'procfs("x\\ty").read',
  'begin?', 'nosuch?', 'nosuch!', 'nosuch', 'nosuch.x', 'begin.x', 'end(1).x', 'begin!', 'begin?, end', 'nosuch?, begin', 'begin!, end',
  'nosuch!, begin', 'be*', 'b*n', '*', 'timer.*', 'timer.*(1)', 'timer.s(*)', 'time?.s(1)', 'tim[a-z]r.s(1)', 'timer.**', '**',
  'begin, end, error', 'begin(1), begin(1)', 'oneshot', 'oneshot, begin', 'input.char', 'input.line', 'kernel.function("*")',
  'module("x").function("f")', 'process.begin', 'process("/bin/ls").begin', 'java("x").class("y").method("z")', 'python3.module("x").function("y")',
  'netfilter.hook("NF_INET_PRE_ROUTING").pf("NFPROTO_IPV4")', 'perf.sw.cpu_clock', 'perf.type(1).config(0)', 'perf.type(1).config(0).sample(0)',
  'kprobe.function("vfs_read")', 'kernel.trace("sched_switch")', 'kernel.data("pid_max").write', 'kernel.data(0).rw',
  'kernel.data(0x1234).length(4).write', 'kernel.data("x").length(9).rw', 'kernel.data("x")', 'hwbkpt', 'syscall.read.maxactive(1)',
];

const WHOLE = [
  'probe a = begin { x = 1 } probe a { println(x) }',
  'probe a += begin { x = 1 } probe a { println(x) }',
  'probe a = begin { x = 1 }, { y = 2 } probe a { println(x) }',
  'probe a += begin { x = 1 }, { y = 2 } probe a { println(x) }',
  'probe a = begin { } probe a.x { println(1) }',
  'probe a = timer.s(1) { } probe a.randomize(1) { println(1) }',
  'probe a = b { } probe b = a { } probe a { println(1) }',
  'probe a = a { } probe a { println(1) }',
  'probe a = begin, end { } probe a { println(pp(), pn()) }',
  'probe a.b = begin { } probe a.c = end { } probe a.* { println(pn()) }',
  'probe a.b = begin { } probe a.c = end { } probe a.** { println(pn()) }',
  'probe a = begin { next } probe a { println(1) }',
  'probe a = begin if (1) { } probe a { println(1) }',
  'global g probe a = begin if (g) { } probe a if (g > 1) { println(1) }',
  'probe a = nosuch { } probe a { println(1) }',
  'probe a = nosuch? { } probe a { println(1) }',
  'probe a = nosuch ?, begin { } probe a { println(1) }',
  'probe a = begin { } probe a?, end { println(1) }',
  'probe a(1) = begin { } probe a(1) { println(1) }',
  'probe a("x") = begin { } probe a("x") { println(1) }',
  'probe a(1) = begin { } probe a(2) { println(1) }',
  'probe a = begin { x = 1 } probe a { x = "s"; println(x) }',
  'probe a = begin { x = 1 } probe a { }',
  'probe a = begin { println(1) } probe a { }',
  'probe a = begin { } probe a = end { } probe a { println(1) }',
  'probe a = begin { } probe a += end { } probe a { println(pp()) }',
  'probe begin { println(1) } probe begin { println(2) }',
  'probe oneshot { println(1) } probe oneshot { println(2) }',
  'probe begin if (1) { println(1) }',
  'probe begin, end if (1) { println(1) }',
];

const PREPROC = [
  '%( kernel_v >= "2.6" %? 1 %: 2 %)', '%( kernel_v > "6.1" %? 1 %: 2 %)', '%( kernel_vr == "6.1.0-fake" %? 1 %: 2 %)',
  '%( kernel_v == "6.1" %? 1 %: 2 %)', '%( kernel_v == "6.*" %? 1 %: 2 %)', '%( kernel_v < "6.*" %? 1 %: 2 %)', '%( arch == "x86_64" %? 1 %: 2 %)',
  '%( arch == "i386" %? 1 %: 2 %)', '%( arch != "x86*" %? 1 %: 2 %)', '%( runtime == "kernel" %? 1 %: 2 %)', '%( runtime == "bpf" %? 1 %: 2 %)',
  '%( systemtap_privilege == "stapdev" %? 1 %: 2 %)', '%( systemtap_v >= "4.8" %? 1 %: 2 %)', '%( systemtap_v > "4.8" %? 1 %: 2 %)',
  '%( CONFIG_HZ == 250 %? 1 %: 2 %)', '%( CONFIG_HZ > 100 %? 1 %: 2 %)', '%( CONFIG_HZ == "250" %? 1 %: 2 %)', '%( CONFIG_KPROBES == "y" %? 1 %: 2 %)',
  '%( CONFIG_NOSUCH == "y" %? 1 %: 2 %)', '%( CONFIG_NOSUCH == "" %? 1 %: 2 %)', '%( CONFIG_KPROBES == y %? 1 %: 2 %)', '%( CONFIG_HZ == CONFIG_HZ %? 1 %: 2 %)',
  '%( 1 == 1 %? 1 %: 2 %)', '%( 1 < 2 %? 1 %: 2 %)', '%( "a" < "b" %? 1 %: 2 %)', '%( "a" == 1 %? 1 %: 2 %)', '%( 1 %? 1 %: 2 %)',
  '%( 1 == 1 && 2 == 2 %? 1 %: 2 %)', '%( 1 == 1 || 2 == 3 %? 1 %: 2 %)', '%( !(1 == 1) %? 1 %: 2 %)', '%( (1 == 1) %? 1 %: 2 %)',
  '%( 1 == 1 %? 1 %)', '%( 1 == 2 %? 1 %)', '%( 1 == 1 %: 2 %)', '%( 1 == 1 %? 1 %: 2 %: 3 %)', '%( 1 == 1 %? 1 %: 2', '%( 1 == 1 1 %: 2 %)',
  '%( nosuch == 1 %? 1 %: 2 %)', '%( $# == 0 %? 1 %: 2 %)', '%( $# == 1 %? 1 %: 2 %)', '%( @# == 0 %? 1 %: 2 %)', '%( $1 == 1 %? 1 %: 2 %)',
  '%( guru_mode == 0 %? 1 %: 2 %)', '%( guru_mode == 1 %? 1 %: 2 %)', '%( kernel_v >= 6 %? 1 %: 2 %)', '%( kernel_v < "6.1" %? 1 %: 2 %)',
  '%( arch == "x86_64" %? %( kernel_v >= "5.0" %? 1 %: 2 %) %: 3 %)', '%( 1 == 1 %? %( %)', '%( systemtap_v >= "4" %? 1 %: 2 %)',
  '%( systemtap_v == "4.8" %? 1 %: 2 %)', '%( systemtap_v == "4.8.0" %? 1 %: 2 %)', '%( systemtap_v <= "4.10" %? 1 %: 2 %)',
  '%( kernel_v >= "2.6.9" && arch != "ia64" %? 1 %: 2 %)', '%( 0x10 == 16 %? 1 %: 2 %)', '%( -1 < 0 %? 1 %: 2 %)', '%( 1 =~ 1 %? 1 %: 2 %)',
];

const MACROS = [
  '@define x %( 1 %) probe begin { println(@x) }',
  '@define x(a) %( @a + 1 %) probe begin { println(@x(1)) }',
  '@define x(a) %( a + 1 %) probe begin { println(@x(1)) }',
  '@define x(a, b) %( @a . @b %) probe begin { println(@x("a", "b")) }',
  '@define x(a) %( @a %) probe begin { println(@x((1, 2))) }',
  '@define x(a) %( @a %) probe begin { println(@x(f(1, 2))) } function f(a, b) { return a + b }',
  '@define x %( @y %) @define y %( 2 %) probe begin { println(@x) }',
  '@define x %( @x %) probe begin { println(@x) }',
  '@define x(a) %( @x(@a) %) probe begin { println(@x(1)) }',
  '@define x %( 1 %) @define x %( 2 %) probe begin { println(@x) }',
  '@define x %( %( 1 == 1 %? 1 %: 2 %) %) probe begin { println(@x) }',
  '%( 1 == 1 %? @define x %( 1 %) %) probe begin { println(@x) }',
  '@define x %( probe begin { println(1) } %) @x',
  '@define x %( "a" %) probe begin { println(@x @x) }',
  '@define x(a) %( @a %) probe begin { println(@x) }',
  '@define x %( 1 %) probe begin { println(@x(1)) }',
  '@define x(a) %( @b %) probe begin { println(@x(1)) }',
  '@define x(a) %( $1 %) probe begin { println(@x(1)) }',
  '@define cast %( 1 %) probe begin { println(1) }',
  '@define count %( 1 %) probe begin { println(1) }',
  '@define x %( @1 %) probe begin { println(@x) }',
];

export const probes: Table = {
  name: 'probes',
  about: 'kernel-free probe points (edge values, markers, conditions), user aliases, -l/-L listings, preprocessor conditions and macros',
  cases(): OracleCase[] {
    const out: OracleCase[] = [];
    POINTS.forEach((pt, i) => {
      out.push(p2(`pt:${i}`, `probe ${pt} { println(pp()) }`));
      out.push({ id: `l:${i}`, args: ['-l', pt] });
      if (i % 3 === 0) out.push({ id: `L:${i}`, args: ['-L', pt] });
    });
    WHOLE.forEach((w, i) => {
      out.push(p2(`alias:${i}`, w));
      out.push({ id: `alias-l:${i}`, args: ['-l', 'a', '-E', w.replace(/probe a(\?|\.x|\.randomize\(1\)|\(2\)|\(1\)|\("x"\)|\.\*|\.\*\*|)?( if \(g > 1\))?(, end)? \{[^}]*\}$/, '')] });
    });
    PREPROC.forEach((p, i) => {
      out.push(p2(`pp:${i}`, `probe begin { println(${p}) }`));
      out.push({ id: `pp-arg:${i}`, args: ['-p2', '-e', `probe begin { println(${p}) }`, '1'] });
    });
    out.push({ id: 'pp-guru', args: ['-g', '-p2', '-e', 'probe begin { println(%( guru_mode == 1 %? 1 %: 2 %)) }'] });
    out.push({ id: 'pp-priv', args: ['--privilege=stapusr', '-p2', '-e', 'probe begin { println(%( systemtap_privilege == "stapusr" %? 1 %: 2 %)) }'] });
    out.push({ id: 'pp-runtime', args: ['--runtime=bpf', '-p1', '-e', 'probe begin { println(%( runtime == "bpf" %? 1 %: 2 %)) }'] });
    MACROS.forEach((m, i) => out.push(p2(`macro:${i}`, m)));
    return out;
  },
};
