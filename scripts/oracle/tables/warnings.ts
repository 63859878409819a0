/**
 * Every pass 1-2 warning stap 4.8 gives (never-assigned variables, unreachable code and
 * overloads, unused command-line arguments, side-effect-free functions, version-dependent
 * tapset constructs, ...), each as is, with -w (suppressed) and -W (an error), plus
 * de-duplication of repeated warnings and the order of warnings and errors.
 */
import { OracleCase, Table } from '../cases';

const SCRIPTS: { id: string; script: string; args?: string[] }[] = [
  { id: 'never-local', script: 'probe begin { println(x) }' },
  { id: 'never-local2', script: 'probe begin { println(x); println(y) }' },
  { id: 'never-local-twice', script: 'probe begin { println(x) } probe end { println(x) }' },
  { id: 'never-local-fn', script: 'function f() { return x } probe begin { println(f()) }' },
  { id: 'never-global', script: 'global g probe begin { println(g) }' },
  { id: 'never-global-arr', script: 'global g probe begin { println(g[1]) }' },
  { id: 'never-global-stats', script: 'global g probe begin { println(@count(g)) }' },
  { id: 'never-global-cond', script: 'global g probe begin if (g) { println(1) }' },
  { id: 'never-global-init', script: 'global g = 1 probe begin { println(g) }' },
  { id: 'unused-arg', script: 'probe begin { println(1) }', args: ['a'] },
  { id: 'unused-arg2', script: 'probe begin { println($1) }', args: ['1', 'b'] },
  { id: 'unused-arg3', script: 'probe begin { println(@2) }', args: ['a', 'b', 'c'] },
  { id: 'unreach-return', script: 'function f() { return 1; println(2) } probe begin { println(f()) }' },
  { id: 'unreach-next', script: 'probe begin { next; println(2) }' },
  { id: 'unreach-break', script: 'probe begin { while (1) { break; println(2) } }' },
  { id: 'unreach-continue', script: 'probe begin { for (i = 0; i < 2; i++) { continue; println(2) } }' },
  { id: 'unreach-exit', script: 'probe begin { exit(); println(2) }' },
  { id: 'unreach-error', script: 'probe begin { error("x"); println(2) }' },
  { id: 'unreach-if', script: 'function f() { if (1) return 1; else return 2; println(3) } probe begin { println(f()) }' },
  { id: 'overload-dead', script: 'function f() { return 1 } function f() { return 2 } probe begin { println(f()) }' },
  { id: 'overload-dead-next', script: 'function f() { next } function f() { return 2 } probe begin { println(f()) }' },
  { id: 'side-effect-free-fn', script: 'function f() { return 1 } probe begin { f() }' },
  { id: 'side-effect-free-expr', script: 'probe begin { x = 1; x + 1 }' },
  { id: 'elide-assign', script: 'probe begin { x = 1 }' },
  { id: 'elide-global-write', script: 'global g probe begin { g = 1 }' },
  { id: 'empty-probe', script: 'probe begin { }' },
  { id: 'empty-probes', script: 'probe begin { } probe end { }' },
  { id: 'empty-one', script: 'probe begin { } probe end { println(1) }' },
  { id: 'multi-warn', script: 'probe begin { println(x, y, z) }' },
  { id: 'warn-then-error', script: 'probe begin { println(x); y = 1 + "a" }' },
  { id: 'error-then-warn', script: 'probe begin { y = 1 + "a"; println(x) }' },
  { id: 'check-version', script: 'probe begin { println(1) }', args: ['--check-version'] },
  { id: 'check-version-tapset', script: 'probe begin { println(task_current()) }', args: ['--check-version'] },
  { id: 'hist-mixed', script: 'global x probe begin { x <<< 1; print(@hist_log(x)); print(@hist_linear(x, 0, 10, 1)) }' },
  { id: 'skip-badvars', script: 'probe begin { println($nosuch) }', args: ['--skip-badvars'] },
  { id: 'unused-global', script: 'global g probe begin { println(1) }' },
  { id: 'unused-function', script: 'function f() { return 1 } probe begin { println(1) }' },
  { id: 'macro-unused', script: '@define x %( 1 %) probe begin { println(1) }' },
  { id: 'foreach-modify', script: 'global a probe begin { a[1] = 1; foreach (k in a) a[k+1] = 2 }' },
  { id: 'foreach-fn-modify', script: 'global a function f() { a[2] = 1 } probe begin { a[1] = 1; foreach (k in a) f() }' },
  { id: 'div-zero-const', script: 'probe begin { x = 1 / 0; println(x) }' },
  { id: 'mod-zero-const', script: 'probe begin { x = 1 % 0; println(x) }' },
  { id: 'shift-big', script: 'probe begin { x = 1 << 70; println(x) }' },
  { id: 'string-cmp-long', script: 'probe begin { if ("a" == 1) println(1) }' },
  { id: 'print-stats', script: 'global s probe begin { s <<< 1; println(s) }' },
  { id: 'duplicate-probe-alias', script: 'probe a = begin { } probe a = end { } probe a { println(1) }' },
  { id: 'pp-wildcard-warn', script: 'probe time*.s(1) { println(1); exit() }' },
  { id: 'optional-nomatch', script: 'probe nosuch? { } probe begin { println(1) }' },
  { id: 'optional-nomatch2', script: 'probe nosuch.x ?, begin { println(1) }' },
  { id: 'deprecated-print', script: 'probe begin { log("x") }' },
  { id: 'printf-extra', script: 'probe begin { printf("%d\\n", 1, 2) }' },
  { id: 'printf-few', script: 'probe begin { printf("%d %d\\n", 1) }' },
  { id: 'printf-type', script: 'probe begin { printf("%d\\n", "a") }' },
  { id: 'printf-type-s', script: 'probe begin { printf("%s\\n", 1) }' },
  { id: 'regex-bad', script: 'probe begin { if ("a" =~ "(") println(1) }' },
  { id: 'long-string', script: `probe begin { println("${'a'.repeat(600)}") }` },
  { id: 'embedded-unpriv', script: 'probe begin { println(1) }', args: ['--unprivileged'] },
  { id: 'guru-nothing', script: 'probe begin { println(1) }', args: ['-g'] },
  { id: 'tapset-private', script: 'probe begin { println(__private___nosuch()) }' },
];

export const warnings: Table = {
  name: 'warnings',
  about: 'each pass 1-2 warning as is, with -w and with -W; de-duplication; warnings around errors',
  cases(): OracleCase[] {
    const out: OracleCase[] = [];
    for (const s of SCRIPTS) {
      const rest = s.args?.filter((a) => !a.startsWith('-')) ?? [];
      const opts = s.args?.filter((a) => a.startsWith('-')) ?? [];
      for (const [k, extra] of [['plain', []], ['w', ['-w']], ['W', ['-W']], ['p1', ['-p1']]] as [string, string[]][]) {
        const pass = k === 'p1' ? [] : ['-p2'];
        out.push({ id: `${s.id}:${k}`, args: [...opts, ...extra, ...pass, '-e', s.script, ...rest] });
      }
    }
    return out;
  },
};
