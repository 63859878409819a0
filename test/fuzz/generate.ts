/**
 * Scripts for fuzzing, as fast-check arbitraries:
 *
 * - `script`: well-typed scripts (typed.ts) that mostly elaborate and run, and looser
 *   grammar-aware scripts: globals (scalars, arrays, statistics), functions and probes
 *   (begin/end/timers/kernel functions/syscalls/process...) whose bodies are statements and
 *   expressions drawn from the whole language: every operator, assignments, ternaries, `in`,
 *   foreach with sorts and limits, try/catch, statistics and histograms, target variables,
 *   @cast/@defined/@entry, regexes (pathological ones too), printf formats with any widths,
 *   numbers at the 64-bit edges, strings with escapes and non-ASCII bytes; plus stress shapes:
 *   deep nesting around the parser's bound, long operator chains, many probes.
 * - `mutant`: corpus scripts (the project's samples, golden tests, tapsets) with byte, token and
 *   splice mutations.
 * - `options`: the command lines they run with: passes 1 to 5, -w, -v, -g, -u, -D limits, -o.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as fc from 'fast-check';
import { typedScript } from './typed';

const VARS = ['x', 'y', 'n', 's', 'i', 'k', 'v', 'a', 'g', 'total'];
const ARRAYS = ['arr', 'cnt', 'm2'];
const STATS = ['st'];
const FUNCS = ['f', 'h', 'sum3', 'str1'];
const BUILTIN_CALLS = [
  'strlen(%s)', 'substr(%s, 1, 2)', 'isinstr(%s, "a")', 'strtol(%s, 10)', 'sprint(%s)', 'sprintln(%s)', 'str_replace(%s, "a", "bb")',
  'text_str(%s)', 'string_quoted(%s)', 'tokenize(%s, " ")', 'stringat(%s, 0)', 'ngroups()', 'matched(0)', 'matched(1)',
  'matched_str()', 'execname()', 'pid()', 'tid()', 'cpu()', 'gettimeofday_ns()', 'get_cycles()', 'randint(10)', 'pp()', 'pn()',
  'probefunc()', 'abs(%s)', 'user_mode()', 'kernel_string(%s)', 'sprintf("%d", %s)', 'isdigit(%s)', 'exit()', 'error(%s)',
  'log(%s)', 'warn(%s)', 'print_backtrace()', 'backtrace()', 'target()', 'uid()', 'ppid()', 'MAXSTRINGLEN', 'system("true")',
];
const PROBES = [
  'begin', 'end', 'error', 'never', 'begin(-1)', 'end(5)', 'timer.ms(1)', 'timer.ms(100)', 'timer.s(1)', 'timer.jiffies(3)',
  'timer.profile', 'kernel.function("vfs_read")', 'kernel.function("vfs_read").return', 'kernel.function("do_sys_open")',
  'kernel.function("sys_*")?', 'syscall.open', 'syscall.read', 'syscall.write.return', 'syscall.*', 'process.begin', 'process.end',
  'process("/bin/ls").function("main")?', 'kernel.trace("sched_switch")', 'kernel.statement("vfs_read")?', 'perf.sw.cpu_clock',
  'procfs("x").read', 'nd_syscall.close?', 'scheduler.cpu_on', 'vfs.read', 'signal.send', 'kprobe.function("vfs_write")',
  'netfilter.ipv4.pre_routing', 'begin, end', '{begin, end}', 'timer.s(1) if (g > 0)', 'foo.bar', '*',
];
const TARGETS = ['$count', '$file', '$buf', '$$parms', '$$vars$', '$file->f_path->dentry->d_name->name', '$count$', '@var("jiffies")',
  '@cast($file, "file")->f_flags', '&$file->f_pos', '$return', '@entry($count)', '@defined($nope) ? 1 : 2', '$foo[0]'];
const REGEXES = ['^a.*b$', '(a|b)+', '[[:digit:]]+', '^(a|a)*$', '(x+x+)+y', '(.*a){8}', '([a-z]+)-([0-9]+)?', 'a{2,5}', '[^]a]',
  '\\\\.', '(', 'a)b', '[z-a]', 'a{3,1}', '*a', '[[:foo:]]', 'x{99999}', '(a*)*b', '^$', '', '.', '(((((a)))))', 'a|b|c|d|', '\\\\1'];
const FORMATS = ['%d', '%s', '%x', '%5d', '%-10s|', '%*d', '%.*s', '%c', '%p', '%b', '%m', '%M', '%016llx', '%2147483647d', '%.999999999d',
  '%*b', '%%', '%#o', '%+d', '%-+5d', '%lld', '%q', '%', '%5', '%1$d', '%s %s %s'];
const NUMBERS = ['0', '1', '-1', '42', '0x7fffffffffffffff', '9223372036854775807', '9223372036854775808', '18446744073709551615',
  '18446744073709551616', '0x8000000000000000', '-9223372036854775808', '0777', '09', '0x', '1000000000', '2147483647', '4294967296'];
const STRINGS = ['""', '"a"', '"hello world"', '"\\n\\t\\\\"', '"\\x41\\101"', '"caf\xc3\xa9"', '"%s%d"', '"\\"quoted\\""', '"\\377"',
  '"a" "b"', '"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"', '"\\0"', '"\\q"'];
const BINOPS = ['+', '-', '*', '/', '%', '<<', '>>', '>>>', '&', '|', '^', '&&', '||', '<', '>', '<=', '>=', '==', '!=', '.'];
const ASSIGNOPS = ['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '|=', '^=', '.='];

const pick = <T>(xs: T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);

function fill(template: string, arg: string): string {
  return template.replace(/%s/g, arg);
}

const lvalue: fc.Arbitrary<string> = fc.oneof(
  pick(VARS),
  fc.tuple(pick(ARRAYS), pick(VARS)).map(([a, k]) => `${a}[${k}]`),
  fc.tuple(pick(ARRAYS), pick(VARS), pick(NUMBERS)).map(([a, k, n]) => `${a}[${k}, ${n}]`),
);

/** Expressions, depth-limited. */
const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    pick(VARS),
    pick(NUMBERS),
    pick(STRINGS),
    lvalue,
    pick(TARGETS),
    fc.tuple(tie('e'), pick(BINOPS), tie('e')).map(([a, o, b]) => `(${a} ${o} ${b})`),
    fc.tuple(pick(['-', '!', '~', '+', '++', '--']), lvalue).map(([o, v]) => `${o}${v}`),
    fc.tuple(lvalue, pick(['++', '--'])).map(([v, o]) => `${v}${o}`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([a, b, c]) => `(${a} ? ${b} : ${c})`),
    fc.tuple(lvalue, pick(ASSIGNOPS), tie('e')).map(([v, o, e]) => `(${v} ${o} ${e})`),
    fc.tuple(tie('e'), pick(ARRAYS)).map(([k, a]) => `(${k} in ${a})`),
    fc.tuple(tie('e'), tie('e'), pick(ARRAYS)).map(([k, l, a]) => `([${k}, ${l}] in ${a})`),
    fc.tuple(tie('e'), pick(['=~', '!~']), pick(REGEXES)).map(([e, o, r]) => `(${e} ${o} "${r}")`),
    fc.tuple(pick(BUILTIN_CALLS), tie('e')).map(([t, a]) => fill(t, a)),
    fc.tuple(pick(FUNCS), tie('e'), tie('e')).map(([f, a, b]) => (f === 'sum3' ? `sum3(${a}, ${b}, 1)` : `${f}(${a})`)),
    fc.tuple(pick(FORMATS), fc.array(tie('e'), { maxLength: 3 })).map(([f, as]) => `sprintf("${f}"${as.map((a) => ', ' + a).join('')})`),
    fc.tuple(pick(['@count', '@sum', '@min', '@max', '@avg']), pick(STATS)).map(([o, s]) => `${o}(${s})`),
    fc.tuple(pick(ARRAYS), pick(VARS)).map(([a, k]) => `@count(${a}[${k}])`),
  ),
})).e;

/** Statements, depth-limited. */
const stmt: fc.Arbitrary<string> = fc.letrec<{ s: string }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    expr.map((e) => `${e}`),
    fc.tuple(lvalue, pick(ASSIGNOPS), expr).map(([v, o, e]) => `${v} ${o} ${e}`),
    fc.tuple(pick(STATS), expr).map(([s, e]) => `${s} <<< ${e}`),
    fc.tuple(pick(FORMATS), fc.array(expr, { maxLength: 3 })).map(([f, as]) => `printf("${f}\\n"${as.map((a) => ', ' + a).join('')})`),
    expr.map((e) => `println(${e})`),
    fc.tuple(expr, tie('s'), fc.option(tie('s'))).map(([c, a, b]) => `if (${c}) ${a}${b ? ` else ${b}` : ''}`),
    fc.tuple(expr, tie('s')).map(([c, b]) => `while (${c}) { ${b}; break }`),
    fc.tuple(lvalue, tie('s')).map(([v, b]) => `for (${v} = 0; ${v} < 3; ${v}++) ${b}`),
    fc.tuple(pick(VARS), pick(ARRAYS), pick(['', '+', '-']), fc.option(pick(['1', '5', '-1', 'n'])), tie('s'))
      .map(([k, a, srt, lim, b]) => `foreach (${k}${srt} in ${a}${lim ? ` limit ${lim}` : ''}) ${b}`),
    fc.tuple(pick(VARS), pick(VARS), pick(ARRAYS), tie('s')).map(([v, k, a, b]) => `foreach (${v} = [${k}, j] in ${a}) ${b}`),
    fc.tuple(pick(VARS), pick(STATS), tie('s')).map(([k, s, b]) => `foreach (${k} in @hist_log(${s})) ${b}`),
    fc.tuple(tie('s'), fc.option(pick(VARS)), tie('s')).map(([a, v, b]) => `try { ${a} } catch${v ? ` (${v})` : ''} { ${b} }`),
    fc.array(tie('s'), { maxLength: 4 }).map((ss) => `{ ${ss.join('; ')} }`),
    pick(ARRAYS).map((a) => `delete ${a}`),
    fc.tuple(pick(ARRAYS), pick(VARS)).map(([a, k]) => `delete ${a}[${k}]`),
    pick(STATS).map((s) => `print(@hist_log(${s}))`),
    pick(STATS).map((s) => `print(@hist_linear(${s}, 0, 100, 10))`),
    pick(['next', 'break', 'continue', 'exit()', 'return 1', ';', 'abort()']),
  ),
})).s;

const body: fc.Arbitrary<string> = fc.array(stmt, { maxLength: 6 }).map((ss) => `{\n  ${ss.join('\n  ')}\n}`);

const decl: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(pick(PROBES), body).map(([p, b]) => `probe ${p} ${b}`),
  fc.tuple(fc.array(pick(['x', 'n']), { maxLength: 2 }), body).map(([ps, b]) => `function f(${ps.length ? ps.join(', ') : 'x'}) ${b}`),
  body.map((b) => `function h:long (x:long) ${b}`),
  body.map((b) => `function str1:string (x) ${b}`),
  body.map((b) => `function sum3(a, b, c) ${b}`),
  fc.tuple(pick(['foo', 'bar.baz']), pick(PROBES), body).map(([a, p, b]) => `probe ${a} = ${p} ${b}`),
  fc.tuple(pick(['foo', 'bar.baz']), pick(PROBES), body).map(([a, p, b]) => `probe ${a} += ${p} ${b}`),
  fc.tuple(pick(VARS), fc.option(fc.oneof(pick(NUMBERS), pick(STRINGS)))).map(([v, i]) => `global ${v}${i ? ` = ${i}` : ''}`),
  fc.tuple(pick(ARRAYS), pick(['', '[10]', '%', '[1]', '[100000]'])).map(([a, s]) => `global ${a}${s}`),
  pick(['global st', 'private global pv', '%{ int x; %}', '@define M(a) %( @a + 1 %)', '%( kernel_v >= "6.0" %? global kv %: global kv2 %)']),
);

/** Deep or long shapes near the bounds (nesting around 1000 levels, chains of thousands). */
const stress: fc.Arbitrary<string> = fc.tuple(
  pick(['paren', 'block', 'if', 'unary', 'call', 'ternary', 'chain', 'minus', 'concat', 'probes', 'foreach', 'else', 'assign', 'regexdeep']),
  fc.integer({ min: 1, max: 3000 }),
).map(([kind, n]) => {
  const wrap = (s: string) => `global arr, x, st\nfunction f(x) { return x }\nprobe begin { ${s}; exit() }`;
  switch (kind) {
    case 'paren': return wrap(`x = ${'('.repeat(n)}1${')'.repeat(n)}`);
    case 'block': return wrap(`${'{'.repeat(n)} x = 1 ${'}'.repeat(n)}`);
    case 'if': return wrap(`${'if (x) '.repeat(n)}x = 2`);
    case 'unary': return wrap(`x = ${'- '.repeat(n)}1`);
    case 'call': return wrap(`x = ${'f('.repeat(n)}1${')'.repeat(n)}`);
    case 'ternary': return wrap(`x = ${'x ? 1 : '.repeat(n)}2`);
    case 'chain': return wrap(`x = ${Array(n * 5).fill('x').join(' + ')}`);
    case 'minus': return wrap(`x = ${Array(n).fill('x').join(' - ')}`);
    case 'concat': return wrap(`println(${Array(n * 5).fill('"ab"').join(' . ')})`);
    case 'probes': return Array(Math.min(n, 1500)).fill(0).map((_, i) => `probe timer.ms(${i + 1}) { arr[${i}]++ }`).join('\n') + '\nprobe begin { exit() }';
    case 'foreach': return `global arr\nprobe begin { arr[1] = 1; ${'foreach (k in arr) '.repeat(Math.min(n, 700))}println(k); exit() }`;
    case 'else': return wrap(Array(n).fill(0).map((_, i) => `if (x == ${i}) x = ${i}`).join(' else '));
    case 'assign': return wrap(Array(n).fill(0).map((_, i) => `a${i}`).join(' = ') + ' = 1');
    default: return wrap(`x = "a" =~ "${'('.repeat(n % 1200)}a${')'.repeat(n % 1200)}"`);
  }
});

export const script: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: typedScript, weight: 12 },
  { arbitrary: fc.array(decl, { minLength: 1, maxLength: 6 }).map((ds) => ds.join('\n') + '\nprobe begin { exit() }'), weight: 6 },
  { arbitrary: fc.array(decl, { minLength: 1, maxLength: 4 }).map((ds) => ds.join('\n')), weight: 2 },
  { arbitrary: stress, weight: 1 },
);

// ---------------------------------------------------------------------------------------------
// Corpus mutations

const root = path.join(__dirname, '..', '..', '..');

function stpFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.stp')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

let corpusCache: string[] | null = null;

/** The project's own scripts: samples, golden tests, tapsets. */
export function corpus(): string[] {
  if (!corpusCache) {
    corpusCache = [...stpFiles(path.join(root, 'samples')), ...stpFiles(path.join(root, 'test', 'golden')), ...stpFiles(path.join(root, 'stdlib'))]
      .sort().map((f) => fs.readFileSync(f, 'latin1'));
  }
  return corpusCache;
}

const SNIPPETS = ['{', '}', '(', ')', '[', ']', ',', ';', '"', '%(', '%?', '%:', '%)', '%{', '%}', '@define', '@1', '$1', '$#',
  'probe', 'global', 'function', 'foreach', 'in', 'limit', 'return', 'if', 'else', '<<<', '->', '$x', '@cast', '@hist_log', '@count',
  '?', '!', '*', '=', '+=', '.', '0x', '99999999999999999999', '\\', '\n', '#', '/*', '*/', '@', '$', 'try', 'catch', '=~', '"(a|a)*$"',
  'exit()', 'println(', '\xff', '\x00', '\xc3\xa9', 'while (1) {}', 'next', '.return', '?', ':', '&', '~', '%'];

export const mutant: fc.Arbitrary<string> = fc.tuple(
  fc.nat(), fc.nat(),
  fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 6 }),
).map(([a, b, edits]) => {
  const c = corpus();
  let s = c[a % c.length];
  for (const [kind, p, q, r] of edits) {
    const pos = s.length ? p % (s.length + 1) : 0;
    switch (kind) {
      case 0: s = s.slice(0, pos) + s.slice(pos + 1 + (q % 16)); break;
      case 1: s = s.slice(0, pos) + SNIPPETS[q % SNIPPETS.length] + s.slice(pos); break;
      case 2: s = s.slice(0, pos) + s.slice(pos, pos + 1 + (q % 40)) + s.slice(pos); break;
      case 3: {
        const other = c[b % c.length];
        const o = other.length ? q % other.length : 0;
        s = s.slice(0, pos) + other.slice(o, o + 1 + (r % 400)) + s.slice(pos);
        break;
      }
      case 4: if (s.length) s = s.slice(0, pos) + String.fromCharCode(r % 256) + s.slice(pos + 1); break;
      default: {
        const q2 = s.length ? q % s.length : 0;
        const [lo, hi] = pos < q2 ? [pos, q2] : [q2, pos];
        s = s.slice(0, lo) + s.slice(hi) + s.slice(lo, hi);
      }
    }
  }
  return s;
});

// ---------------------------------------------------------------------------------------------
// Command lines

export interface Invocation {
  /** options before the script */
  opts: string[];
  /** 1..5 */
  pass: number;
  /** script given as -e (else as a file in the sandbox) */
  inline: boolean;
  /** -o FILE in the sandbox */
  output: boolean;
}

export const invocation: fc.Arbitrary<Invocation> = fc.record({
  opts: fc.array(pick(['-w', '-v', '-g', '-u', '-DMAXACTION=100', '-DMAXSTRINGLEN=64', '-DMAXNESTING=5', '-DMAXMAPENTRIES=10',
    '-t', '--suppress-handler-errors', '-k', '--skip-badvars', '-G', '-s1']), { maxLength: 3 })
    .map((os) => os.flatMap((o) => (o === '-G' ? ['-G', 'g=5'] : [o]))),
  pass: fc.constantFrom(1, 2, 2, 2, 3, 4, 5, 5),
  inline: fc.boolean(),
  output: fc.boolean(),
});
