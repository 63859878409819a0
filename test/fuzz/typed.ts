/**
 * Well-typed scripts for fuzzing: long and string expressions kept apart (variables, arrays,
 * functions and printf arguments of the right types), so that most scripts pass elaboration
 * and their handlers run on the simulated machine, where the runtime's corners are: 64-bit
 * arithmetic at the edges, division by zero, string limits, printf widths and precisions,
 * regexes and matched(), arrays, statistics and histograms, foreach sorts, try/catch, nested
 * function calls, MAXACTION and MAXNESTING.
 */
import * as fc from 'fast-check';

const pick = <T>(xs: T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);

const LONGS = ['n', 'i', 'k', 'total'];
const STRS = ['s', 't'];
const NUMS = ['0', '1', '2', '-1', '7', '255', '1000', '65536', '0x7fffffffffffffff', '-9223372036854775808', '9223372036854775807',
  '0x8000000000000000', '4294967295', '2147483648', '0777', '0xff', '1000000007'];
const STRLITS = ['""', '"a"', '"abc-12"', '"hello world"', '"x y z"', '"\\n\\t"', '"\\x41\\101"', '"caf\xc3\xa9"', '"%d%s"', '"\\\\"', '"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"', '"0x1f"', '"-42"'];
const REGEXES = ['^a', 'b$', '([a-z]+)-([0-9]+)?', '^(a|a)*$', '(x+x+)+y', '[[:digit:]]+', '(a|ab)(c|bcd)(d*)', '(.*)c(.*)', '^$', '.',
  '[^a-z]', 'a{2,4}', '(a*)*', '\\\\.', '\\.', 'caf\xc3\xa9', '(((a)))', '(.*a){12}'];
const LONG_FMT = ['%d', '%5d', '%-5d|', '%x', '%X', '%#x', '%o', '%#o', '%u', '%+d', '% d', '%05d', '%.3d', '%c', '%p', '%b', '%i', '%ld',
  '%2147483647d', '%.999999999d', '%-100000000d', '%m', '%.4M', '%#b', '%4b'];
const STR_FMT = ['%s', '%10s|', '%-10s|', '%.2s', '%.0s', '%.*s'];

export interface Typed { long: fc.Arbitrary<string>; str: fc.Arbitrary<string> }

const exprs: Typed = fc.letrec<{ long: string; str: string }>((tie) => ({
  long: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    pick(NUMS),
    pick(LONGS),
    pick(LONGS).map((v) => `cnt[${v}]`),
    pick(STRS).map((v) => `names[${v}]`),
    fc.tuple(tie('long'), pick(['+', '-', '*', '/', '%', '<<', '>>', '&', '|', '^', '&&', '||', '<', '>', '<=', '>=', '==', '!=']), tie('long'))
      .map(([a, o, b]) => `(${a} ${o} ${b})`),
    fc.tuple(tie('str'), pick(['==', '!=', '<', '>']), tie('str')).map(([a, o, b]) => `(${a} ${o} ${b})`),
    fc.tuple(pick(['-', '!', '~']), tie('long')).map(([o, a]) => `${o}(${a})`),
    fc.tuple(pick(['++', '--']), pick(LONGS)).map(([o, v]) => `${o}${v}`),
    fc.tuple(pick(LONGS), pick(['++', '--'])).map(([v, o]) => `${v}${o}`),
    fc.tuple(tie('long'), tie('long'), tie('long')).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    fc.tuple(pick(LONGS), pick(['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '|=', '^=']), tie('long')).map(([v, o, e]) => `(${v} ${o} ${e})`),
    fc.tuple(tie('long'), pick(['cnt'])).map(([k, a]) => `(${k} in ${a})`),
    fc.tuple(tie('str')).map(([k]) => `(${k} in names)`),
    fc.tuple(tie('str'), pick(['=~', '!~']), pick(REGEXES)).map(([s, o, r]) => `(${s} ${o} "${r}")`),
    tie('str').map((s) => `strlen(${s})`),
    fc.tuple(tie('str'), tie('str')).map(([a, b]) => `isinstr(${a}, ${b})`),
    tie('str').map((s) => `strtol(${s}, 0)`),
    fc.tuple(tie('str'), tie('long')).map(([s, i]) => `stringat(${s}, ${i})`),
    pick(['pid()', 'tid()', 'cpu()', 'ngroups()', 'gettimeofday_s()', 'jiffies()', 'randint(100)', '@count(st)', '@sum(st)', '@max(st)',
      '@min(st)', '@avg(st)', 'uid()', 'target()', 'get_cycles()', 'is_return()', 'user_mode()']),
    fc.tuple(tie('long'), tie('long')).map(([a, b]) => `fl(${a}, ${b})`),
    tie('long').map((a) => `rec(${a} % 30)`),
  ),
  str: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    pick(STRLITS),
    pick(STRS),
    pick(LONGS).map((v) => `labels[${v}]`),
    fc.tuple(tie('str'), tie('str')).map(([a, b]) => `(${a} . ${b})`),
    fc.tuple(tie('str'), tie('long'), tie('long')).map(([s, a, b]) => `substr(${s}, ${a}, ${b})`),
    tie('long').map((a) => `sprint(${a})`),
    tie('long').map((a) => `sprintln(${a})`),
    fc.tuple(tie('long'), tie('str'), tie('str')).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    fc.tuple(pick(STRS), pick(['=', '.=']), tie('str')).map(([v, o, e]) => `(${v} ${o} ${e})`),
    fc.tuple(tie('str'), tie('str'), tie('str')).map(([a, b, c]) => `str_replace(${a}, ${b}, ${c})`),
    tie('long').map((a) => `matched(${a} % 4)`),
    pick(['matched_str()', 'execname()', 'pp()', 'pn()', 'probefunc()', 'ctime(0)', 'user_string(0)', 'kernel_string(0)', 'sprint_backtrace()']),
    tie('str').map((s) => `text_str(${s})`),
    tie('str').map((s) => `string_quoted(${s})`),
    fc.tuple(tie('str'), tie('str')).map(([a, b]) => `tokenize(${a}, ${b})`),
    tie('long').map((a) => `fs(${a})`),
    fc.tuple(pick(LONG_FMT), tie('long')).map(([f, a]) => `sprintf("${f}", ${a})`),
    fc.tuple(pick(STR_FMT), tie('str'), tie('long')).map(([f, s, w]) => (f === '%.*s' ? `sprintf("${f}", ${w}, ${s})` : `sprintf("${f}", ${s})`)),
    fc.tuple(tie('long'), tie('long')).map(([w, a]) => `sprintf("%*d", ${w}, ${a})`),
  ),
}));

const { long, str } = exprs;

const stmt: fc.Arbitrary<string> = fc.letrec<{ s: string }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(pick(LONGS), long).map(([v, e]) => `${v} = ${e}`),
    fc.tuple(pick(STRS), str).map(([v, e]) => `${v} = ${e}`),
    fc.tuple(long, long).map(([k, e]) => `cnt[${k}] = ${e}`),
    fc.tuple(str, long).map(([k, e]) => `names[${k}] += ${e}`),
    fc.tuple(long, str).map(([k, e]) => `labels[${k}] = ${e}`),
    long.map((e) => `st <<< ${e}`),
    long.map((e) => `println(${e})`),
    str.map((e) => `println(${e})`),
    fc.tuple(long, str).map(([a, b]) => `printf("%d %s\\n", ${a}, ${b})`),
    fc.tuple(pick(LONG_FMT), long).map(([f, a]) => `printf("${f}\\n", ${a})`),
    fc.tuple(long, str).map(([a, b]) => `printd(",", ${a}, ${b})`),
    fc.tuple(long, tie('s'), fc.option(tie('s'))).map(([c, a, b]) => `if (${c}) { ${a} }${b ? ` else { ${b} }` : ''}`),
    fc.tuple(long, tie('s')).map(([c, b]) => `while (${c}) { ${b}; break }`),
    fc.tuple(pick(['i', 'k']), tie('s')).map(([v, b]) => `for (${v} = 0; ${v} < 5; ${v}++) { ${b} }`),
    fc.tuple(pick(['', '+', '-']), fc.option(pick(['2', 'n', '-1'])), tie('s'))
      .map(([srt, lim, b]) => `foreach (kk${srt} in snap${lim ? ` limit ${lim}` : ''}) { i = kk; ${b} }`),
    fc.tuple(tie('s')).map(([b]) => `foreach ([ks, kn] in snap2-) { s = ks; n = kn; ${b} }`),
    fc.tuple(tie('s')).map(([b]) => `foreach (v = kk in snapl) { t = v; ${b} }`),
    fc.tuple(tie('s')).map(([b]) => `foreach (kk in stats @sum+) { ${b} }`),
    pick(['foreach (b in @hist_log(st)) printf("%d\\n", b)', 'print(@hist_log(st))', 'print(@hist_linear(st, 0, 100, 10))',
      'delete cnt', 'delete names', 'delete labels[n]', 'delete st', 'next', 'exit()', 'error("boom")', 'abort()',
      'while (1) {}', 'for (;;) n++', 'println(rec(50))', 'warn("w")', 'system("echo hi")']),
    fc.tuple(tie('s'), tie('s')).map(([a, b]) => `try { ${a} } catch (msg) { t = msg; ${b} }`),
    fc.array(tie('s'), { maxLength: 4 }).map((ss) => `{ ${ss.join('; ')} }`),
  ),
})).s;

const body = fc.array(stmt, { minLength: 1, maxLength: 8 }).map((ss) => `{\n  ${ss.join('\n  ')}\n}`);

const PROBES = ['begin', 'end', 'timer.ms(1)', 'timer.ms(50)', 'timer.s(1)', 'timer.profile', 'kernel.function("vfs_read")',
  'syscall.openat', 'syscall.read.return', 'error', 'begin(-5)', 'end(1)', 'kernel.trace("sched_switch")',
  'scheduler.cpu_on', 'vfs.write', 'timer.hz(100)', 'perf.sw.cpu_clock.sample(1000000)'];

const FUNCTIONS = `function fl:long (a:long, b:long) { if (b == 0) return a; return a / b + a % b }
function fs:string (a:long) { return sprintf("<%d>", a) }
function rec:long (x:long) { if (x <= 0) return 0; return rec(x - 1) + 1 }
`;

/** A well-typed script: the globals and helper functions, probes with random bodies, an end. */
export const typedScript: fc.Arbitrary<string> = fc.tuple(
  fc.array(fc.tuple(pick(PROBES), body), { minLength: 1, maxLength: 5 }),
  fc.boolean(),
).map(([probes, ends]) =>
  `global n, i, k, total, s, t, cnt, names, labels, st, snap, snap2, snapl, stats\n${FUNCTIONS}` +
  'probe begin(-100) { n = 3; i = 0; k = 0; total = 0; s = "abc-12"; t = "x"; cnt[0] = 0; names[""] = 0; labels[0] = ""; st <<< 1; ' +
  'for (j = 0; j < 5; j++) { snap[j] = j * 7; snap2[sprint(j), j] = j; snapl[j] = sprint(j); stats[j] <<< j } }\n' +
  probes.map(([p, b]) => `probe ${p} ${b}`).join('\n') + (ends ? '\nprobe timer.ms(20) { exit() }\n' : '\n'));
