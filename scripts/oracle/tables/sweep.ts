/**
 * Issue 16's third sweep, combinational (generated, not written case by case): every update
 * operator on every lvalue kind the grammar admits (target variables, @var, @defined, @entry,
 * casts, ternaries, calls, literals, array and stat elements) in a probe and in a function;
 * foreach sort suffixes x value forms x limits on plain, multi-key and stat arrays; warning
 * scripts under every combination of -w, -W and -u; --compatible gates on preprocessor
 * conditions, @var/@defined/@entry, wildcards and newer statements; preprocessor conditions on
 * every operand kind; printf flag triples on every conversion with long and string arguments.
 */
import { OracleCase, Table, p1, p2 } from '../cases';

const LVALUES: { key: string; text: string; decl?: string; pre?: string }[] = [
  { key: 'local', text: 'x', pre: 'x = 1;' },
  { key: 'slocal', text: 'y', pre: 'y = "a";' },
  { key: 'global', text: 'g', decl: 'global g' },
  { key: 'arr', text: 'a[1]', decl: 'global a' },
  { key: 'arr2', text: 'm[1, "k"]', decl: 'global m' },
  { key: 'arrwrong', text: 'm[1]', decl: 'global m', pre: 'm[1, "k"] = 1;' },
  { key: 'larr', text: 'la[1]' },
  { key: 'stat', text: 's', decl: 'global s', pre: 's <<< 1;' },
  { key: 'statel', text: 'ss[1]', decl: 'global ss', pre: 'ss[1] <<< 1;' },
  { key: 'count', text: '@count(s)', decl: 'global s', pre: 's <<< 1;' },
  { key: 'target', text: '$x' },
  { key: 'targetm', text: '$x->y' },
  { key: 'targets', text: '$$vars' },
  { key: 'var', text: '@var("x")' },
  { key: 'defined', text: '@defined(x)' },
  { key: 'definedt', text: '@defined($x)' },
  { key: 'entry', text: '@entry(x)', pre: 'x = 1;' },
  { key: 'cast', text: '@cast(0, "task_struct")->pid' },
  { key: 'tern', text: '(1 ? x : x)', pre: 'x = 1;' },
  { key: 'paren', text: '(x)', pre: 'x = 1;' },
  { key: 'call', text: 'f()', decl: 'function f() { return 1 }' },
  { key: 'lit', text: '5' },
  { key: 'slit', text: '"s"' },
  { key: 'neg', text: '-x', pre: 'x = 1;' },
  { key: 'cat', text: 'y . y', pre: 'y = "a";' },
  { key: 'arg', text: '$1' },
  { key: 'atarg', text: '@1' },
  { key: 'hist', text: '@hist_log(s)[1]', decl: 'global s', pre: 's <<< 1;' },
  { key: 'addr', text: '&x', pre: 'x = 1;' },
];

const UPDATES: { key: string; form: (t: string) => string }[] = [
  { key: 'set', form: (t) => `${t} = 2` },
  { key: 'sets', form: (t) => `${t} = "v"` },
  { key: 'add', form: (t) => `${t} += 2` },
  { key: 'cat', form: (t) => `${t} .= "v"` },
  { key: 'shl', form: (t) => `${t} <<= 1` },
  { key: 'and', form: (t) => `${t} &= 1` },
  { key: 'preinc', form: (t) => `++${t}` },
  { key: 'predec', form: (t) => `--${t}` },
  { key: 'postinc', form: (t) => `${t}++` },
  { key: 'postdec', form: (t) => `${t}--` },
  { key: 'agg', form: (t) => `${t} <<< 1` },
  { key: 'del', form: (t) => `delete ${t}` },
];

function lvCases(): OracleCase[] {
  const out: OracleCase[] = [];
  for (const lv of LVALUES) {
    for (const u of UPDATES) {
      const decl = lv.decl ? lv.decl + '\n' : '';
      const body = `${lv.pre ?? ''} ${u.form(lv.text)}; println(1)`;
      const args = lv.key === 'arg' || lv.key === 'atarg' ? ['A'] : [];
      out.push({ id: `lv:${lv.key}:${u.key}`, args: ['-p2', '-e', `${decl}probe begin { ${body} }`, ...args] });
      // the same inside a function (target variables are resolved against the caller's context)
      if (['set', 'add', 'postinc', 'agg', 'del'].includes(u.key)) {
        out.push({ id: `lvf:${lv.key}:${u.key}`, args: ['-p2', '-e', `${decl}function h() { ${body} } probe begin { h() }`, ...args] });
      }
      // as an expression, its value used
      if (['set', 'add', 'preinc', 'postdec'].includes(u.key)) {
        out.push({ id: `lve:${lv.key}:${u.key}`, args: ['-p2', '-e', `${decl}probe begin { ${lv.pre ?? ''} z = (${u.form(lv.text)}); println(z) }`, ...args] });
      }
    }
  }
  return out;
}

const ARRAYS: { key: string; decl: string; fill: string; keys: number; value: 'long' | 'string' | 'stat' }[] = [
  { key: 'a', decl: 'global a', fill: 'a[1] = 2; a[3] = 1;', keys: 1, value: 'long' },
  { key: 'sv', decl: 'global a', fill: 'a["x"] = "p"; a["y"] = "q";', keys: 1, value: 'string' },
  { key: 'm', decl: 'global a', fill: 'a[1, "x"] = 2; a[2, "y"] = 1;', keys: 2, value: 'long' },
  { key: 'st', decl: 'global a', fill: 'a[1] <<< 2; a[2] <<< 5; a[2] <<< 1;', keys: 1, value: 'stat' },
];

function foreachCases(): OracleCase[] {
  const out: OracleCase[] = [];
  for (const arr of ARRAYS) {
    const ks = arr.keys === 1 ? ['k'] : ['k', 'j'];
    const keySorts: string[][] = [ks.map(() => '')];
    for (let i = 0; i < ks.length; i++) for (const d of ['+', '-']) keySorts.push(ks.map((_, j) => (j === i ? d : '')));
    if (ks.length === 2) keySorts.push(['+', '-']);
    const aggs = arr.value === 'stat' ? ['', '@count', '@sum', '@min', '@max', '@avg', '@variance', '@hist_log'] : [''];
    for (const ksort of keySorts) {
      const keyText = ks.length === 1 ? `${ks[0]}${ksort[0]}` : `[${ks.map((k, i) => k + ksort[i]).join(', ')}]`;
      for (const vsort of ['', '+', '-']) {
        for (const value of [false, true]) {
          for (const limit of ['', ' limit 1', ' limit 0', ' limit -1', ' limit "s"', ' limit lim']) {
            for (const agg of aggs) {
              if (agg && (ksort.some((s) => s) || limit || value)) continue;
              if (limit && (value || ksort.some((s) => s) && vsort)) continue;
              const target = agg ? `${agg}(a)` : 'a';
              const head = `${value ? 'v = ' : ''}${keyText} in ${target}${vsort}${limit}`;
              const use = value ? 'println(v)' : `println(${ks.join(', ')})`;
              const id = `fe:${arr.key}:${ksort.map((s) => s || '.').join(',')}:${vsort || '.'}:${value ? 'v' : '.'}:${limit.trim() || '.'}:${agg || '.'}`;
              out.push(p2(id, `${arr.decl} probe begin { lim = 1; ${arr.fill} foreach (${head}) ${use} }`));
            }
          }
        }
      }
    }
  }
  // wrong arities and doubled sort directives
  const odd = [
    'foreach ([k+, j+] in a) println(k)', 'foreach (v- = k in a) println(v)', 'foreach (v = k+ in a-) println(v)', 'foreach (k++ in a) println(k)',
    'foreach (k+- in a) println(k)', 'foreach (k in a+-) println(k)', 'foreach (k in a limit 1 limit 2) println(k)', 'foreach (k in a limit) println(k)',
    'foreach (k in +a) println(k)', 'foreach (k in a[1]+) println(k)', 'foreach ([k] in a+ limit 1) println(k)', 'foreach (v = [k] in a) println(v)',
    'foreach (k in a) limit 1 println(k)', 'foreach (k in a limit 1, 2) println(k)', 'foreach (k in a limit (1, 2)) println(k)',
    'foreach (k in a limit k) println(k)', 'foreach (k in a limit a[1]) println(k)', 'foreach (k in a limit f()) println(k)',
  ];
  odd.forEach((o, i) => out.push(p2(`fe-odd:${i}`, `global a function f() { return 1 } probe begin { a[1] = 1; a[2] = 2; ${o} }`)));
  return out;
}

const WARN_SCRIPTS = [
  'probe begin { x = 1 }',
  'probe begin { x = 1; println(2) }',
  'global g probe begin { g = 1 }',
  'global g probe begin { println(g) }',
  'global g = 1 probe begin { println(2) }',
  'global g, h probe begin { h = 1; println(g) }',
  'function f() { return 1 } probe begin { println(2) }',
  'function f(x) { y = x } probe begin { f(1) }',
  'function f(x) { return 1 } probe begin { println(f(1)) }',
  'function f() { z = 1; return 2 } probe begin { println(f()) }',
  'private function f() { return 1 } probe begin { println(2) }',
  'private global g probe begin { println(g) }',
  'probe begin { println(x) }',
  'probe begin { println(x); x = 1 }',
  'probe begin { a[1] = 1 }',
  'probe begin { s <<< 1 }',
  'global s probe begin { s <<< 1 }',
  'global a probe begin { a[1] = 1 }',
  'global a probe begin { println(a[1]) }',
  'probe begin { if (0) x = 1; println(x) }',
  'probe begin { foreach (k in a) println(k) }',
  'probe begin { println(1) } probe end { y = 2 }',
  'probe begin { println(1) } probe nosuch? { }',
  'probe begin { println(1) }',
  'probe begin { }',
  'probe begin { x = 1; y = x }',
  'probe begin { x++ }',
  'probe begin { x = "s"; x .= "t" }',
  'function f() { } probe begin { f() }',
  'function f() { return 1 } function g() { return f() } probe begin { println(1) }',
];

function warnCases(): OracleCase[] {
  const out: OracleCase[] = [];
  const combos: [string, string[]][] = [
    ['', []], ['w', ['-w']], ['W', ['-W']], ['u', ['-u']], ['uW', ['-u', '-W']], ['uw', ['-u', '-w']], ['wW', ['-w', '-W']], ['Ww', ['-W', '-w']],
    ['p1W', ['-p1', '-W']], ['v1', ['--compatible=1.0']], ['v1W', ['--compatible=1.0', '-W']],
  ];
  WARN_SCRIPTS.forEach((s, i) => {
    for (const [k, opts] of combos) {
      const pass = opts.includes('-p1') ? [] : ['-p2'];
      out.push({ id: `warn:${i}:${k || '.'}`, args: [...opts, ...pass, '-e', s] });
    }
  });
  return out;
}

const GATED = [
  'probe begin { println(%( systemtap_v >= "2.0" %? 1 %: 2 %)) }',
  'probe begin { println(%( systemtap_v < "1.4" %? 1 %: 2 %)) }',
  'probe begin { println(%( systemtap_v != "4.8" %? 1 %: 2 %)) }',
  'probe begin { println(%( systemtap_v == "1.0" %? 1 %: 2 %)) }',
  'probe begin { println(%( systemtap_v >= 2 %? 1 %: 2 %)) }',
  'probe begin { println(%( systemtap_v <= "3" %? 1 %: 2 %)) }',
  'probe begin { println(%( systemtap_v >= "2.0" && systemtap_v < "4.0" %? 1 %: 2 %)) }',
  'probe begin { println(%( systemtap_v >= "2.0" || systemtap_v < "1.0" %? 1 %: 2 %)) }',
  'probe begin { println(%( systemtap_privilege == "stapdev" %? 1 %: 2 %)) }',
  'probe begin { println(@var("x")) }',
  'probe begin { println(@var("x@foo.c")) }',
  'probe begin { println(@defined(@var("x")) ? 1 : 2) }',
  'probe begin { println(@defined($x) ? 1 : 2) }',
  'probe begin { println(@defined(1) ? 1 : 2) }',
  'probe begin { println(@entry(1)) }',
  'probe begin { println(@const("X")) }',
  'probe begin { println(@probewrite(x)) }',
  'probe begin { x = 1; println(@probewrite(x)) }',
  'global a probe begin { a[1] = 1; delete a[*] }',
  'global a probe begin { a[1] = 1; foreach (k in a limit 1) println(k) }',
  'global a probe begin { a[1] = 1; foreach (v = k in a) println(v) }',
  'probe begin { try { error("x") } catch { println(1) } }',
  'probe begin { x = "a" . 1 }',
  'probe be*n { println(1) }',
  'probe begin(1), end(-1) { println(1) }',
  'probe begin { printf("%b\\n", 1) }',
  'probe begin { printf("%M\\n", "a") }',
  'probe begin { printf("%#x\\n", 1) }',
  'probe begin { println(strtol("10", 16)) }',
  'probe begin { println(substr("abc", 1, 1)) }',
  'probe begin { println(text_str("a")) }',
  'probe begin { println(stringat("abc", 1)) }',
  'probe begin { println(str_replace("a", "a", "b")) }',
  'probe begin { println(isinstr("a", "b")) }',
  'probe begin { println(string_quoted("a")) }',
  'probe begin { println(tokenize("a b", " ")) }',
  'probe begin { println(strlen("a")) }',
  'probe begin { println(sprint(1)) }',
  'probe begin { println(isdigit("1")) }',
  'probe begin { println(ansi_clear_screen()) }',
  'probe begin { println(get_cycles()) }',
  'probe begin { println(gettimeofday_s()) }',
  'probe begin { println(randint(3) < 3) }',
  'probe begin { println(abs(-1)) }',
  'probe begin { println(log10(100)) }',
  'probe begin { println(indent(1)) }',
  'probe begin { println(thread_indent(1)) }',
  'probe begin { println(ctime(0)) }',
  'probe begin { println(tz_ctime(0)) }',
  'probe begin { println(errno_str(1)) }',
  'probe begin { println(return_str(1, 0)) }',
  'probe begin { println(kernel_string(0)) }',
  'probe begin { println(user_long(0)) }',
  'probe begin { println(MAXSTRINGLEN) }',
  'probe begin { println(@MAXSTRINGLEN) }',
  'probe begin { x = 1; x <<<= 1 }',
  'function f:long(a:long) { return a } probe begin { println(f(1)) }',
  'function f(a:long, b) { return a } probe begin { println(f(1, 2)) }',
  'probe begin { println(1) } probe error { println(2) }',
  'probe begin { println(1) } probe never { println(2) }',
];

function compatCases(): OracleCase[] {
  const out: OracleCase[] = [];
  const versions = ['1.0', '1.8', '2.5', '3.1', '4.1', '4.8'];
  GATED.forEach((s, i) => {
    for (const v of versions) out.push({ id: `compat:${i}:${v}`, args: [`--compatible=${v}`, '-p2', '-e', s] });
  });
  return out;
}

/** preprocessor conditions: every comparison on every operand kind, and malformed conditions */
function preprocCases(): OracleCase[] {
  const out: OracleCase[] = [];
  const operands = ['1', '"1"', 'kernel_v', 'kernel_vr', 'arch', 'systemtap_v', 'systemtap_privilege', '$#', '@#', '$1', '@1', 'CONFIG_SMP', 'runtime', 'guru_mode', 'x', '-1', '"a"'];
  const ops = ['==', '!=', '<', '<=', '>', '>='];
  for (const a of operands) {
    if (a === 'CONFIG_SMP') continue;
    for (const op of ops) {
      for (const b of ['"6.1"', '1', '"x86_64"', '"y"', '"kernel"']) {
        if ((op !== '==' && op !== '<') && b !== '1' || (op === '<' && b !== '"6.1"' && b !== '1')) continue;
        out.push({ id: `pp:${a}:${op}:${b}`, args: ['-p1', '-e', `probe begin { println(%( ${a} ${op} ${b} %? "T" %: "F" %)) }`, 'A'] });
      }
    }
  }
  const bad = [
    '%( 1 %? 2 %)', '%( 1 %? 2 %: 3', '%( 1 == 1 %: 2 %)', '%( %? 1 %)', '%( 1 %)', '%( 1 == %? 1 %)', '%( == 1 %? 1 %)',
    '%( 1 == 1 && %? 1 %)', '%( (1 == 1) %? 1 %)', '%( 1 == 1 %? 1 %: 2 %: 3 %)', '%( 1 == 1 %? %( 2 == 2 %? 3 %) %)',
    '%( kernel_v >= "2.6" && arch == "x86_64" %? 1 %: 2 %)', '%( kernel_v == "6.1*" %? 1 %: 2 %)', '%( kernel_vr == "6.1.0*" %? 1 %: 2 %)',
    '%( arch == "x86*" %? 1 %: 2 %)', '%( CONFIG_SMP == "y" %? 1 %: 2 %)', '%( CONFIG_NOSUCH == "y" %? 1 %: 2 %)', '%( CONFIG_HZ == 250 %? 1 %: 2 %)',
    '%( $# == 0 %? 1 %: 2 %)', '%( @# < 1 %? 1 %: 2 %)', '%( $1 == 1 %? 1 %: 2 %)', '%( @1 == "A" %? 1 %: 2 %)', '%( $2 == 1 %? 1 %: 2 %)',
    '%( systemtap_v > "4.8" %? 1 %: 2 %)', '%( systemtap_v == "4.8" %? 1 %: 2 %)', '%( runtime == "kernel" %? 1 %: 2 %)', '%( runtime == "dyninst" %? 1 %: 2 %)',
    '%( guru_mode == 0 %? 1 %: 2 %)', '%( 1 %? 1 %: 2 %)', '%( "a" %? 1 %: 2 %)', '%( 1 == 1 || 1 == %? 1 %: 2 %)', '%( !1 %? 1 %: 2 %)',
    '%( 1 == 1 && 2 == 2 || 3 == 4 %? 1 %: 2 %)', '%( 1 == 1 && (2 == 2) %? 1 %: 2 %)', '%( 1 = 1 %? 1 %: 2 %)', '%( 1 =~ 1 %? 1 %: 2 %)',
    '%( kernel_v >= 6 %? 1 %: 2 %)', '%( systemtap_v >= "a" %? 1 %: 2 %)', '%( "a" < "b" %? 1 %: 2 %)', '%( 2 < "10" %? 1 %: 2 %)',
  ];
  bad.forEach((c, i) => {
    // (CONFIG_SMP is set in Debian's config, not in the oracle's build tree: its answers are the environment's)
    if (c.includes('CONFIG_SMP')) return;
    out.push({ id: `pp-form:${i}`, args: ['-p1', '-e', `probe begin { println(${c}) }`, 'A'] });
    out.push({ id: `pp-form:${i}:p2`, args: ['-p2', '-e', `probe begin { println(${c}) }`, 'A'] });
  });
  return out;
}

/** printf: three-flag combinations with widths/precisions on every conversion */
function printfCases(): OracleCase[] {
  const out: OracleCase[] = [];
  const convs = ['d', 'i', 'u', 'x', 'X', 'o', 'p', 'c', 's', 'b', 'm', 'M'];
  const flagSets = ['-+ ', '-#0', '0+#', '-+#0 '];
  const sizes = ['', '08.3', '*', '.-1', '*.*'];
  for (const c of convs) {
    for (const f of flagSets) {
      for (const s of sizes) {
        const stars = (s.match(/\*/g) ?? []).length;
        const lead = Array(stars).fill('4').join(', ');
        for (const arg of ['-42', '"ab"']) {
          if (s !== '' && s !== '08.3' && s !== '*' && arg === '"ab"') continue;
          out.push(p2(`pf:${c}:${JSON.stringify(f)}:${s || '.'}:${arg === '-42' ? 'L' : 'S'}`,
            `probe begin { printf("<%${f}${s}${c}>\\n", ${lead ? lead + ', ' : ''}${arg}) }`));
        }
      }
    }
    // star arguments of the wrong kind, missing, or a stat
    out.push(p2(`pf-star:${c}:str`, `probe begin { printf("<%*${c}>\\n", "w", 1) }`));
    out.push(p2(`pf-star:${c}:missing`, `probe begin { printf("<%*${c}>\\n") }`));
    out.push(p2(`pf-star:${c}:prec-str`, `probe begin { printf("<%.*${c}>\\n", "p", "x") }`));
    out.push(p2(`pf-sprintf:${c}`, `probe begin { x = sprintf("%-#08.3${c}", 7); println(x) }`));
  }
  return out;
}

/** each corner at -p1 too, where the parser alone decides */
function parseCases(): OracleCase[] {
  return LVALUES.map((lv) => p1(`p1-lv:${lv.key}`, `${lv.decl ?? ''} probe begin { ${lv.pre ?? ''} ${lv.text} += 1; ++${lv.text}; ${lv.text}--; ${lv.text} <<< 1 }`));
}

export const sweep: Table = {
  name: 'sweep',
  about: 'generated: update operators x lvalue kinds, foreach sort/limit forms, -w/-W/-u combinations, --compatible gates, preprocessor conditions, printf flag triples',
  cases(): OracleCase[] {
    return [...lvCases(), ...foreachCases(), ...warnCases(), ...compatCases(), ...preprocCases(), ...printfCases(), ...parseCases()];
  },
};
