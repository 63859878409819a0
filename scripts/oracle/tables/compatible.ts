/**
 * `--compatible VERSION` gates of stap 4.8: the language changes listed in its NEWS (ternary
 * precedence, bare `return`, `private`, overloading, try/catch, @define, regex, `@entry`,
 * empty-probe elision, ...), the tapset's `%( systemtap_v ... %)` gates (functions and
 * aliases that exist or change with the version) and the version argument's own checks.
 */
import { OracleCase, Table } from '../cases';

const VERSIONS = ['1.0', '1.2', '1.3', '1.4', '1.7', '2.0', '2.2', '2.3', '2.6', '2.8', '2.9', '3.0', '3.2', '3.3', '4.0', '4.1', '4.2', '4.3', '4.4', '4.8'];

const FEATURES: { id: string; script: string; p1?: boolean }[] = [
  { id: 'ternary-assign', script: 'probe begin { x = 0; y = 1 ? 2 : x = 3; println(y) }', p1: true },
  { id: 'bare-return', script: 'function f() { return; } probe begin { f() }' },
  { id: 'private', script: 'private global g = 1 probe begin { println(g) }' },
  { id: 'private-fn', script: 'private function f() { return 1 } probe begin { println(f()) }' },
  { id: 'overload', script: 'function f(a) { return 1 } function f(a, b) { return 2 } probe begin { println(f(1), f(1, 2)) }' },
  { id: 'overload-next', script: 'function f() { next } function f() { return 2 } probe begin { println(f()) }' },
  { id: 'try', script: 'probe begin { try { error("x") } catch (m) { println(m) } }' },
  { id: 'define', script: '@define x %( 1 %) probe begin { println(@x) }' },
  { id: 'regex', script: 'probe begin { if ("abc" =~ "b") println(matched(0)) }' },
  { id: 'entry', script: 'probe begin { println(@entry(1)) }' },
  { id: 'defined', script: 'probe begin { println(@defined($x) ? 1 : 2) }' },
  { id: 'foreach-value', script: 'global a probe begin { a[1] = 2; foreach (v = k in a) println(v, k) }' },
  { id: 'slice', script: 'global a probe begin { a[1, 2] = 3; foreach ([x, y] in a[1, *]) println(x, y) }' },
  { id: 'empty-probe', script: 'probe begin { } probe end { println(1) }' },
  { id: 'only-empty', script: 'probe begin { }' },
  { id: 'variance', script: 'global s probe begin { s <<< 1; println(@variance(s)) }' },
  { id: 'abort', script: 'probe begin { abort() }' },
  { id: 'exit-arg', script: 'probe begin { exit() }' },
  { id: 'string-glue', script: 'probe begin { println("a" /* */ "b") }', p1: true },
  { id: 'hex-escape', script: 'probe begin { println("\\x41") }', p1: true },
  { id: 'this', script: 'probe begin { @this1 = 1 }' },
  { id: 'kderef', script: 'probe begin { println(@kderef(8, 0)) }' },
  { id: 'user-string-n-quoted', script: 'probe begin { println(user_string_n_quoted(0, 10)) }' },
  { id: 'user-string-warn', script: 'probe begin { println(user_string_warn(0)) }' },
  { id: 'env-var', script: 'probe begin { println(env_var("HOME")) }' },
  { id: 'task-fns', script: 'probe begin { println(task_current()) }' },
  { id: 'printf-p', script: 'probe begin { printf("%p\\n", 1) }' },
  { id: 'systemtap-v', script: 'probe begin { println(%( systemtap_v >= "3.0" %? "new" %: "old" %)) }' },
  { id: 'systemtap-v-eq', script: 'probe begin { println(%( systemtap_v == "2.0" %? "two" %: "not" %)) }' },
  { id: 'probewrite', script: 'global g probe begin { g = 1 }' },
  { id: 'autocast', script: 'probe begin { t = task_current(); println(t->pid) }' },
];

export const compatible: Table = {
  name: 'compatible',
  about: '--compatible VERSION: every language and tapset gate of stap 4.8 at each version, and bad version arguments',
  cases(): OracleCase[] {
    const out: OracleCase[] = [];
    for (const f of FEATURES) {
      for (const v of VERSIONS) {
        out.push({ id: `${f.id}:${v}`, args: ['--compatible', v, f.p1 ? '-p1' : '-p2', '-e', f.script], stdout: !f.script.includes('task_') });
      }
    }
    for (const v of ['', 'abc', '4', '4.8.1', '4.8a', '0.9', '1', '5.0', '4.9', '10.0', '-1', '1.x', '4.08', '99999999999.0']) {
      out.push({ id: `version:${v}`, args: ['--compatible', v, '-p2', '-e', 'probe begin { println(1) }'] });
    }
    out.push({ id: 'version:eq-form', args: ['--compatible=2.0', '-p2', '-e', 'probe begin { println(1) }'] });
    out.push({ id: 'version:twice', args: ['--compatible', '2.0', '--compatible', '3.0', '-p2', '-e', 'probe begin { println(%( systemtap_v >= "3.0" %? "new" %: "old" %)) }'] });
    return out;
  },
};
