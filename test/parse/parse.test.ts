import { expect } from 'chai';
import type * as A from '../../src/ast';
import { Diagnostics, ParseError } from '../../src/diag';
import { parseFile } from '../../src/parse';
import { tokenize } from '../../src/parse/lexer';
import { expr, printFile } from '../../src/parse/print';
import { strverscmp, fnmatch } from '../../src/parse/preprocess';

function src(text: string, name = '<input>'): A.SourceFile {
  return { name, text, isTapset: false };
}

function parse(text: string, args: string[] = [], guru = false): { file: A.StapFile | null; errors: string } {
  let errors = '';
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: false }, (s) => { errors += s; });
  const file = parseFile(src(text), { args, guru }, diag);
  return { file, errors };
}

/** The first statement of `probe begin { TEXT }` printed in canonical form. */
function canon(text: string, args: string[] = []): string {
  const r = parse(`probe begin { ${text} }`, args);
  if (!r.file) throw new Error(r.errors);
  const s = r.file.probes[0].body.stmts[0];
  if (s.k !== 'expr') throw new Error('not an expression statement');
  return expr(s.expr);
}

function errorOf(text: string, args: string[] = []): string {
  const r = parse(text, args);
  expect(r.file, 'should fail').to.equal(null);
  return r.errors.split('\n')[0];
}

describe('pass 1: lexer', () => {
  const lex = (t: string, args: string[] = []) => {
    const errors: ParseError[] = [];
    const toks = tokenize(src(t), { args, errors });
    return { toks: toks.map((x) => `${x.kind}:${x.text}`), errors: errors.map((e) => e.message) };
  };

  it('drops the three comment styles but keeps $# and @#', () => {
    expect(lex('a # c\nb // d\nc /* e\nf */ g').toks).to.deep.equal(['identifier:a', 'identifier:b', 'identifier:c', 'identifier:g']);
    expect(lex('$# @#', ['x', 'y']).toks).to.deep.equal(['number:2', 'string:2']);
  });

  it('lexes identifiers with $, @operators, keywords and longest-match operators', () => {
    expect(lex('$foo$$ $$vars @cast probe <<< >>= ->').toks).to.deep.equal([
      'identifier:$foo$$', 'identifier:$$vars', 'operator:@cast', 'keyword:probe', 'operator:<<<', 'operator:>>=', 'operator:->']);
  });

  it('tracks line and column in bytes', () => {
    const toks = tokenize(src('probe\n  begin\t{'), { args: [], errors: [] });
    expect(toks.map((t) => `${t.line}:${t.col}`)).to.deep.equal(['1:1', '2:3', '2:9']);
  });

  it('reports an unterminated string and embedded block', () => {
    expect(lex('"abc').errors).to.deep.equal(['Could not find matching closing quote']);
    expect(lex('%{ int x;').errors).to.deep.equal(["Could not find matching '%}' to close embedded function block"]);
  });

  it('pastes $N raw and @N as a string, and checks the range', () => {
    expect(lex('$1', ['5+5']).toks).to.deep.equal(['number:5', 'operator:+', 'number:5']);
    expect(lex('@1', ['a"b']).toks).to.deep.equal(['string:a\\"b']);
    expect(errorOf('probe begin { x = $3 }', ['a'])).to.equal('parse error: command line argument out of range [1-1]');
    // only arguments that survive the preprocessor count
    expect(parse('probe begin { x = %( $# > 2 %? @3 %: "" %) }', ['a']).file).to.not.equal(null);
    expect(lex('$1', ['$2']).errors).to.deep.equal(['invalid nested substitution of command line arguments']);
  });
});

describe('pass 1: numbers and strings', () => {
  it('accepts decimal, hex and octal, wrapping 2^63..2^64-1', () => {
    expect(canon('x = 0x10 + 010')).to.equal('(x) = ((16) + (8))');
    expect(canon('x = 18446744073709551615')).to.equal('(x) = (-1)');
    expect(canon('x = 9223372036854775808')).to.equal('(x) = (-9223372036854775808)');
    expect(canon('x = -9223372036854775808')).to.equal('(x) = (-(-9223372036854775808))');
  });

  it('rejects invalid numbers', () => {
    expect(errorOf('probe begin { x = 09 }')).to.equal('parse error: number invalid or out of range');
    expect(errorOf('probe begin { x = 0x1g }')).to.equal('parse error: number invalid or out of range');
    expect(errorOf('probe begin { x = 18446744073709551616 }')).to.equal('parse error: number invalid or out of range');
  });

  it('interprets C escapes and concatenates adjacent literals', () => {
    const r = parse('probe begin { x = "a\\tb\\101\\x41\\q" /* c */ "d" }');
    const s = r.file!.probes[0].body.stmts[0] as A.ExprStmt;
    const v = (s.expr as A.Assign).value as A.StringLit;
    expect(v.value).to.equal('a\tbAAqd');
  });
});

describe('pass 1: operator precedence (stap, not C)', () => {
  const cases: [string, string][] = [
    ['x = 1 + 2 * 3', '(x) = ((1) + ((2) * (3)))'],
    ['x = a == b in arr', '(x) = ([(a) == (b)] in arr)'],
    ['x = "a" . 1 + 2', '(x) = (("a") . ((1) + (2)))'],
    ['x = a & b == c', '(x) = ((a) & ((b) == (c)))'],
    ['x = a < b < c', '(x) = (((a) < (b)) < (c))'],
    ['x = !a * b', '(x) = ((!(a)) * (b))'],
    ['x = a ? b : c ? d : e', '(x) = ((a)?(b):((c)?(d):(e)))'],
    ['x = y = 3', '(x) = ((y) = (3))'],
    ['x = a || b && c | d ^ e & f', '(x) = ((a) || ((b) && ((c) | ((d) ^ ((e) & (f))))))'],
    ['x = a << 1 . b', '(x) = ((a) << ((1) . (b)))'],
    ['x = a - -b', '(x) = ((a) - (-(b)))'],
    ['x = a >>> 2 >> 1', '(x) = (((a) >>> (2)) >> (1))'],
    ['x = s =~ "re"', '(x) = ((s) =~ "re")'],
    // (real-stap -p1: a match ends its comparison; `+ 1` is then a statement of its own)
    ['x = s =~ "re" + 1', '(x) = ((s) =~ "re")'],
    ['x = s =~ "re" && 1', '(x) = (((s) =~ "re") && (1))'],
    ['x = [1, *] in a', '(x) = ([1, *] in a)'],
    ['x = ++y + z--', '(x) = ((++(y)) + ((z)--))'],
    ['x = ~a & 3', '(x) = ((~(a)) & (3))'],
    ['x <<< a + 1', '(x) <<< ((a) + (1))'],
  ];
  for (const [input, out] of cases) {
    it(input, () => expect(canon(input)).to.equal(out));
  }
});

describe('pass 1: statements and declarations', () => {
  it('needs no separators between statements', () => {
    const r = parse('probe begin { x = 1 y = 2 ; ; z = 3 }');
    expect(r.file!.probes[0].body.stmts.map((s) => s.k)).to.deep.equal(['expr', 'expr', 'null', 'expr']);
  });

  it('parses foreach forms with sort markers, slices and limit', () => {
    const r = parse('global a probe begin { foreach ([x, y-] in a[*, 2] limit 3) {} foreach (v = k in a @sum+) {} }');
    const [f1, f2] = r.file!.probes[0].body.stmts as A.Foreach[];
    expect(f1.keys.map((k) => k.name)).to.deep.equal(['x', 'y']);
    expect([f1.sortColumn, f1.sortDirection, f1.slice!.length]).to.deep.equal([2, -1, 2]);
    expect(f2.value!.name).to.equal('v');
    expect([f2.sortColumn, f2.sortDirection, f2.sortAggregate]).to.deep.equal([0, 1, 'sum']);
  });

  it('rejects two sort directives', () => {
    expect(errorOf('global a probe begin { foreach ([x+, y-] in a) {} }')).to.equal('parse error: multiple sort directives');
  });

  it('parses globals with wrap, size and initialisers', () => {
    const r = parse('global a%[10], b = -5, c = "s" probe begin {}');
    const [a, b, c] = r.file!.globals;
    expect([a.wrap, a.maxSize]).to.deep.equal([true, 10]);
    expect((b.init as A.NumberLit).value).to.equal(-5);
    expect((c.init as A.StringLit).value).to.equal('s');
    expect(errorOf('global a[10] = 1')).to.equal('parse error: only scalar globals can be initialized');
    // a size is a literal with an optional '-'; out of range (< 1, > INT_MAX) is reported as at
    // the end of the input (real-stap -p1 'global g[-1]', 'global g[0]', 'global g[2147483648]')
    for (const bad of ['global g[0]', 'global g[-1]', 'global g[- 1]', 'global g[-0]', 'global g[2147483648]']) {
      expect(parse(bad).errors, bad).to.equal('parse error: array size out of range\n        saw: <input> EOF\n\n');
    }
    expect(parse('global g[2147483647]').errors).to.equal('');
    expect(errorOf('global g[-x]')).to.equal('parse error: expected number');
  });

  it('parses functions with annotations, priorities and embedded bodies', () => {
    const r = parse('function f:long(a:string, b) : 3 { return 1 } function g() %{ /* pure */ %}', [], true);
    const [f, g] = r.file!.functions;
    expect([f.returnType, f.params[0].declaredType, f.params[1].declaredType, f.priority]).to.deep.equal(['long', 'string', undefined, 3]);
    expect(g.body.k).to.equal('embedded');
    expect(errorOf('function f(a, a) {}')).to.equal('parse error: duplicate parameter names');
    expect(errorOf('function f() : 0 {}')).to.equal('parse error: specified priority must be > 0');
  });

  it('parses probe points: args, wildcards, braces, ?, !, conditions', () => {
    const r = parse('probe kernel.function("vfs_*").return?, syscall.{read,write}!, sys**open if (x > 1) {}');
    const pts = r.file!.probes[0].points;
    expect(pts.length).to.equal(4);
    expect(pts[0].components.map((c) => c.name)).to.deep.equal(['kernel', 'function', 'return']);
    expect(pts[0].optional).to.equal(true);
    expect(pts[1].components.map((c) => c.name)).to.deep.equal(['syscall', 'read']);
    expect(pts[2].sufficient).to.equal(true);
    expect(pts[3].components.map((c) => c.name)).to.deep.equal(['sys**open']);
    expect(pts[3].condition).to.not.equal(undefined);
  });

  it('parses aliases: prologue, epilogue, both, and multiple names', () => {
    const r = parse('probe a = begin { x = 1 } probe b += end { y = 2 } probe c = begin { p = 1 }, { q = 2 } probe d = e = begin {}');
    const [a, b, c, d] = r.file!.aliases;
    expect([!!a.prologue, !!a.epilogue, !!b.prologue, !!b.epilogue, !!c.prologue, !!c.epilogue]).to.deep.equal([true, false, false, true, true, true]);
    expect(d.names.length).to.equal(2);
    expect(errorOf('probe a += begin { }, { }')).to.equal("parse error: Combined prologue and epilogue cannot be defined with '+='");
    expect(errorOf('probe a? = begin { }')).to.equal('parse error: probe point alias name cannot be optional nor sufficient');
  });

  it('rejects return outside functions and printf without a literal format', () => {
    expect(errorOf('probe begin { return 1 }')).to.equal("parse error: found 'return' not in function context");
    expect(errorOf('probe begin { printf(x) }')).to.equal('parse error: expected literal string');
  });

  it('rejects histograms where an expression is expected', () => {
    expect(errorOf('global s probe begin { x = @hist_log(s) }')).to.equal('parse error: base histogram operator where expression expected');
    expect(errorOf('probe begin { @foo(1) }')).to.equal('parse error: unknown operator @foo');
    // (real-stap -p1: other ASCII punctuation is a one-character operator the parser refuses)
    expect(errorOf('probe begin { @ }')).to.equal('parse error: unknown operator @');
    expect(errorOf('probe begin { x = @ 1 }')).to.equal('parse error: unknown operator @');
    expect(errorOf("probe begin { x = 'c' }")).to.equal('parse error: expected literal string or number');
    expect(errorOf('probe begin { x = 1 ` }')).to.equal('parse error: expected literal string or number');
    expect(errorOf('probe begin { x = \\ }')).to.equal('parse error: expected literal string or number');
    expect(errorOf('probe begin { if ("abc" =~ "a" . "b") println(1) }')).to.equal("parse error: expected ')'");
    expect(errorOf('probe begin { x = "abc" =~ "a" < 1 }')).to.equal('parse error: expected literal string or number');
    expect(errorOf('probe begin { x = f(1 2) }')).to.equal("parse error: expected one of ') ,'");
    expect(errorOf('function f(a b) {}')).to.equal("parse error: expected ',' or ')'");
    expect(errorOf('private probe begin {}')).to.equal("parse error: expected 'function' or identifier");
    expect(errorOf('private 1')).to.equal("parse error: expected 'function' or identifier");
  });

  it('names what was expected at the end of the file as stap 4.8 does', () => {
    // real-stap -p1 -e of each text: "saw: <input> EOF" after the message
    const atEof = (text: string): string => {
      const r = parse(text);
      expect(r.file, 'should fail').to.equal(null);
      expect(r.errors.split('\n')[1]).to.equal('        saw: <input> EOF');
      return r.errors.split('\n')[0];
    };
    expect(atEof('probe foo if')).to.equal("parse error: expected '('");
    expect(atEof('probe foo if (x')).to.equal("parse error: expected ')'");
    expect(atEof('probe begin { x = ')).to.equal('parse error: expected value');
    expect(atEof('probe begin { foreach (x in a @sum')).to.equal('parse error: expected sort directive');
    expect(atEof('function f(')).to.equal('parse error: unexpected end-of-file');
    expect(errorOf('probe foo if x')).to.equal("parse error: expected '('");
  });

  it('names the token stap 4.8 last took at the end of the file, none after one it swallows', () => {
    // real-stap -p1 -e of each text, the two first lines of stderr
    const sawAtEof = (text: string): string => {
      const r = parse(text);
      expect(r.file, 'should fail').to.equal(null);
      return r.errors.split('\n').slice(0, 2).join('|');
    };
    const eof = (msg: string): string => `parse error: ${msg}|        saw: <input> EOF`;
    // a token taken with next(): named
    expect(sawAtEof('probe')).to.equal('parse error: unexpected end-of-file|        saw: keyword at <input>:1:1');
    expect(sawAtEof('function f')).to.equal("parse error: unexpected end-of-file|        saw: identifier 'f' at <input>:1:10");
    expect(sawAtEof('function f(a')).to.equal("parse error: unexpected end-of-file|        saw: identifier 'a' at <input>:1:12");
    expect(sawAtEof('global x = ')).to.equal("parse error: unexpected end-of-file|        saw: operator '=' at <input>:1:10");
    // a token swallowed: none
    for (const t of ['global x[', 'global x[1', 'global x = -', 'function f:long', 'function f(a:long', 'probe begin,',
      'probe a =', 'probe a +=', 'probe a.', 'probe a(', 'probe {', 'probe {a,', 'probe a = b {},',
      'probe begin { try { }', 'probe begin { try { } catch(', 'probe begin { try { } catch (e)',
      'probe begin { foreach ([a,', 'probe begin { @cast(x,']) {
      expect(sawAtEof(t), t).to.equal(eof('unexpected end-of-file'));
    }
    // a `for`'s init and increment are expression statements
    expect(sawAtEof('probe begin { for (')).to.equal(eof('expression statement expected'));
    expect(sawAtEof('probe begin { for (x;1;')).to.equal(eof('expression statement expected'));
    expect(sawAtEof('probe begin { for (x;')).to.equal(eof('expected value'));
  });

  it('reports errors in stap layout and resynchronises at the next declaration', () => {
    // stap 4.8 (-p1 of the same text) prints both errors with the file name on each; a second
    // error with the same message would be counted as a "similar error message suppressed"
    const r = parse('probe begin { x = }\nprobe end { if }\nprobe begin { ok = 1 }');
    expect(r.file).to.equal(null);
    expect(r.errors).to.equal(
      'parse error: expected literal string or number\n' +
      "        saw: operator '}' at <input>:1:19\n" +
      '     source: probe begin { x = }\n' +
      '                               ^\n\n' +
      "parse error: expected '('\n" +
      "        saw: operator '}' at <input>:2:16\n" +
      '     source: probe end { if }\n' +
      '                            ^\n\n');
  });
});

describe('pass 1: preprocessor', () => {
  it('selects conditional branches on the simulated kernel', () => {
    expect(canon('%( kernel_v >= "2.6.30" %? x = 1 %: x = 2 %)')).to.equal('(x) = (1)');
    expect(canon('%( kernel_v < "6.0" %? x = 1 %: x = 2 %)')).to.equal('(x) = (2)');
    expect(canon('%( arch == "x86_*" && CONFIG_HZ == 250 %? x = 1 %: x = 2 %)')).to.equal('(x) = (1)');
    expect(canon('%( arch == "arm*" || CONFIG_MODULES == "y" %? x = 1 %: x = 2 %)')).to.equal('(x) = (1)');
    expect(canon('%( 1 == 2 %? x = 1 %: %( "a" < "b" %? x = 3 %) %)')).to.equal('(x) = (3)');
    expect(canon('%( $# == 1 %? x = 1 %: x = 2 %)', ['a'])).to.equal('(x) = (1)');
  });

  it('rejects files with no tokens, or none left after preprocessing', () => {
    expect(parse('# only a comment').errors).to.equal("Input file '<input>' is empty.\n");
    expect(parse('@define foo %( cheese %)').errors).to.equal("Input file '<input>' is empty after preprocessing.\n");
  });

  it('names the right side of a condition comparing a string and a number (real-stap -p1)', () => {
    expect(errorOf('%( 1 == "a" %? probe begin {} %)')).to.equal('parse error: expected number literal as right value');
    expect(errorOf('%( "a" =~ 1 %? probe begin {} %)')).to.equal('parse error: expected string literal as right value');
    expect(errorOf('%( $1 =~ "5" %? probe begin {} %)', ['5'])).to.equal('parse error: expected number literal as right value');
    expect(errorOf('%( "a" == x %? probe begin {} %)')).to.match(/^parse error: expected 'arch', 'kernel_v'/);
    expect(errorOf('%( "a" begin 1 %? probe begin {} %)')).to.match(/^parse error: expected 'arch', 'kernel_v'/);
    expect(errorOf('%( "a" begin "b" %? probe begin {} %)')).to.equal('parse error: expected comparison operator');
  });

  it('rejects duplicate and conflicting global declarations', () => {
    expect(errorOf('global x global x')).to.equal('parse error: duplicate global name');
    expect(errorOf('global x private x')).to.equal('parse error: global versus private variable declaration conflict');
  });

  it('refuses embedded C without -g', () => {
    expect(errorOf('%{ int x; %} probe begin {}')).to.equal('parse error: embedded code in unprivileged script; need stap -g');
    expect(errorOf('probe begin { x = %{ 1 %} }')).to.equal('parse error: embedded expression code in unprivileged script; need stap -g');
  });

  it('reports malformed conditionals', () => {
    expect(errorOf('probe begin { %( arch == "x" x = 1 %) }')).to.equal("parse error: expected '%?' marker for conditional");
    expect(errorOf('probe begin { %? }')).to.equal("parse error: incomplete conditional - missing '%('");
    expect(errorOf('probe begin { %( kernel_v < "2*" %? x = 1 %) }')).to.equal('parse error: wildcard not allowed with order comparison operators');
    expect(errorOf('probe begin { %( 1 == 1 %? x = 1 %: y = 1 %: z = 1 %) }')).to.equal("parse error: invalid conditional - duplicate '%:'");
  });

  it('compares versions like strverscmp and globs like fnmatch', () => {
    expect(strverscmp('6.1.0', '2.6.30')).to.equal(1);
    expect(strverscmp('6.1.0', '6.10')).to.equal(-1);
    expect(strverscmp('4.8', '4.8')).to.equal(0);
    expect(fnmatch('x86_*', 'x86_64')).to.equal(true);
    expect(fnmatch('[ab]c?', 'bcd')).to.equal(true);
  });
});

describe('pass 1: macros', () => {
  const withMacros = (defs: string, body: string) => {
    const r = parse(`${defs}\nprobe begin { ${body} }`);
    if (!r.file) return r.errors.split('\n')[0];
    return expr((r.file.probes[0].body.stmts[0] as A.ExprStmt).expr);
  };
  it('substitutes parameters and expands nested macros', () => {
    expect(withMacros('@define SQ(x) %( (@x) * (@x) %) @define Q(y) %( @SQ(@y) + 1 %)', 'v = @Q(2)'))
      .to.equal('(v) = (((2) * (2)) + (1))');
    expect(withMacros('@define K %( 42 %)', 'v = @K')).to.equal('(v) = (42)');
  });
  it('defines macros even inside a false conditional branch', () => {
    expect(withMacros('%( 1 == 0 %? @define M %( 7 %) %)', 'v = @M')).to.equal('(v) = (7)');
  });
  it('reports macro errors with stap texts', () => {
    expect(withMacros('@define M(a) %( @a %)', 'v = @M')).to.equal("parse error: expected '(' in invocation of macro '@M' taking 1 parameter");
    expect(withMacros('@define M(a) %( @a %)', 'v = @M(1, 2)')).to.equal("parse error: too many parameters for macro '@M' (expected 1)");
    expect(withMacros('@define M(a, b) %( @a %)', 'v = @M(1)')).to.equal("parse error: too few parameters for macro '@M' (expected 2)");
    expect(withMacros('@define M %( 1 %) @define M %( 2 %)', 'v = @M')).to.equal("parse error: attempt to redefine macro '@M' in the same file");
    expect(withMacros('@define M %( 1', 'v = 1')).to.equal("parse error: incomplete macro definition - missing '%)'");
  });

  it('names the token of a macro error as stap 4.8 does, warns on built-in names, keeps $N errors in an expansion', () => {
    // real-stap -p1 of each text
    const two = (text: string, args: string[] = []): string => parse(text, args).errors.split('\n').slice(0, 2).join('|');
    expect(two('@define x(a) %( @a %) probe begin { @x(1, 2, 3) }'))
      .to.equal("parse error: too many parameters for macro '@x' (expected 1)|         at: operator ',' at <input>:1:41");
    expect(two('@define x(a,b,c) %( @a %) probe begin { @x(1) }'))
      .to.equal("parse error: too few parameters for macro '@x' (expected 3)|         at: operator ')' at <input>:1:45");
    expect(two('@define x(a) %( $1 %) probe begin { println(@x(1)) }'))
      .to.equal("parse error: command line argument out of range [1-0]|         at: junk '' at <input>:1:17");
    const r = parse('@define cast %( 1 %) @define count %( 1 %) @define task %( 1 %) probe begin {}');
    expect(r.file).to.not.equal(null);
    expect(r.errors.split('\n').filter((l) => l.startsWith('WARNING'))).to.deep.equal([
      "WARNING: macro redefines built-in operator '@cast': identifier 'cast' at <input>:1:9",
      "WARNING: macro redefines built-in operator '@count': identifier 'count' at :1:30"]);
  });

  it('goes on after a bad @define as stap 4.8 scans: from the token it names, the file empty after preprocessing if nothing else', () => {
    // real-stap -p1 of each text: the errors' first lines, then the file found empty (no error count)
    const lines = (text: string): string[] => parse(text).errors.split('\n').filter((l) => /^(parse error|Input file|WARNING)|(saw|at): /.test(l));
    expect(lines('@define x(a,) %( a %)')).to.deep.equal([
      'parse error: expected identifier', "         at: operator ')' at <input>:1:13",
      "parse error: incomplete condition after '%('", "         at: operator '%(' at <input>:1:15",
      "Input file '<input>' is empty after preprocessing."]);
    expect(lines('@define x')).to.deep.equal(["parse error: expected '%(' or '('", '        saw: <input> EOF',
      "Input file '<input>' is empty after preprocessing."]);
    expect(lines('@define x %( 1 %) @define x %( 2 %) probe begin {}').slice(0, 4)).to.deep.equal([
      "parse error: attempt to redefine macro '@x' in the same file", "         at: identifier 'x' at <input>:1:27",
      "parse error: macro '@x' first defined here", "         at: identifier 'x' at <input>:1:9"]);
    // a declaration after it: parsed, the error counted
    expect(lines('@define 1 probe begin {}')).to.deep.equal(['parse error: expected identifier', "         at: number '1' at <input>:1:9"]);
    // @define in a body is refused where it is expanded
    expect(parse('@define x %( @define y %( 1 %) %)').errors).to.equal("Input file '<input>' is empty after preprocessing.\n");
    expect(lines('@define x %( @define y %( 1 %) %) probe begin { @x }')[0]).to.equal("parse error: '@define' forbidden inside macro body");
  });

  it("warns at each `}%` in embedded code, an unterminated block's junk has no text (stap 4.8)", () => {
    // real-stap -p1 of each text
    expect(parse('function f() %{ }%').errors.split('\n').slice(0, 5)).to.deep.equal([
      "WARNING: possible erroneous closing '}%', use '%}'?: embedded-code at <input>:1:14",
      ' source: function f() %{ }%',
      '                      ^',
      "parse error: Could not find matching '%}' to close embedded function block",
      "         at: junk '' at <input>:1:14"]);
    expect(parse('%{ }% %}').errors.split('\n')[0]).to.equal("WARNING: possible erroneous closing '}%', use '%}'?: embedded-code at <input>:1:1");
    expect(parse('function f() %{ %} probe begin {}', [], true).errors).to.equal('');
  });

  it('tests --runtime in a condition', () => {
    const p1 = (runtime?: string): string => {
      const f = parseFile(src('probe begin { println(%( runtime == "bpf" %? 1 %: 2 %)) }'), { args: [], guru: false, runtime },
        new Diagnostics({ verbose: 0, suppressWarnings: false }, () => {}));
      return printFile(f!);
    };
    expect(p1('bpf')).to.contain('println(1)');
    expect(p1()).to.contain('println(2)');
  });
});

describe('pass 1: -p1 printer', () => {
  it('prints declarations in canonical order', () => {
    const r = parse('function f(a) { return a } probe begin { f(1) } global g');
    expect(printFile(r.file!)).to.equal('# file <input>\nglobal g\nprobe begin{\nf(1);\n}\nfunction f (a)\n{\nreturn a;\n}\n');
  });

  it('@task is @cast(..., "task_struct"), & applies to autocasts', () => {
    expect(canon('@task(p)->pid')).to.equal('@cast(p, "task_struct", "kernel<linux/sched.h>")->pid');
    // (stap 4.8 -p1: `&` on any value is an autocast, printed `&(value)`; before 2.6 only on targets)
    expect(canon('&x->mm->mm_mt')).to.equal('&(x)->mm->mm_mt');
    expect(canon('&(1 + 2)')).to.equal('&((1) + (2))');
    expect(canon('&-1')).to.equal('&(-1)');
    expect(canon('f()->a')).to.equal('(f())->a');
    const old = parseFile(src('probe begin { x = &(1 + 2) }'), { args: [], guru: false, compatible: '2.5' }, new Diagnostics({ verbose: 0, suppressWarnings: false }, () => {}));
    expect(old).to.equal(null);
    // (real-stap --compatible=2.5 -p1: `& &y` is refused as not a target before the second `&`)
    let err = '';
    parseFile(src('probe begin { x = & &y }'), { args: [], guru: false, compatible: '2.5' }, new Diagnostics({ verbose: 0, suppressWarnings: false }, (t) => { err += t; }));
    expect(err.split('\n')[0]).to.equal('parse error: expected @cast, @var or $var');
    expect(errorOf('probe begin { x = & &y }')).to.equal('parse error: expected literal string or number');
  });

  it('@kregister, @kderef and @const need guru mode; @perf takes a non-empty literal string', () => {
    expect(errorOf('probe begin { @kregister(0) }')).to.equal('parse error: using @kregister operator not permitted; need stap -g');
    expect(errorOf('probe begin { x = @kderef(8, 0) }')).to.equal('parse error: using @kderef operator not permitted; need stap -g');
    expect(errorOf('probe begin { println(@const("HZ")) }')).to.equal('parse error: using @const operator not permitted; need stap -g');
    expect(parse('probe begin { println(@const("HZ")) }', [], true).file).to.not.equal(null);
    expect(errorOf('probe begin { y = @perf(1) }')).to.equal('parse error: expected literal string');
    expect(errorOf('probe begin { y = @perf("") }')).to.equal('parse error: expected non-empty string');
  });

  it("takes an @-operator's arguments one by one as stap 4.8's parser does (real-stap -p1 on each)", () => {
    const err2 = (e: string): string => {
      const r = parse(`probe begin { x = ${e} }`, [], true);
      expect(r.file, 'should fail').to.equal(null);
      return r.errors.split('\n').slice(0, 2).join('\n');
    };
    // operands are expressions: nothing there is "expected literal string or number" at the `)`
    expect(err2('@count()')).to.equal("parse error: expected literal string or number\n        saw: operator ')' at <input>:1:26");
    expect(err2('@entry(a, b)')).to.equal("parse error: expected ')'\n        saw: operator ',' at <input>:1:27");
    expect(err2('@defined(a b)')).to.equal("parse error: expected ')'\n        saw: identifier 'b' at <input>:1:30");
    // statistics: each `,` counts (the operand is the first), numbers after it; other tokens are passed over
    expect(err2('@count(a, 1)')).to.equal("parse error: not more than 1 parameter allowed\n         at: operator ',' at <input>:1:27");
    expect(err2('@variance(a, 1, 2)')).to.equal("parse error: not more than 2 parameters allowed\n         at: operator ',' at <input>:1:33");
    expect(err2('@variance(a, x)')).to.equal("parse error: expected number\n        saw: identifier 'x' at <input>:1:32");
    expect(canon('@count(a x)')).to.equal('@count(a)');
    expect(canon('@variance(a 5 , 2)')).to.equal('@variance(a, 2)');
    expect(canon('@variance(a, -1 2)')).to.equal('@variance(a, -1)');
    expect(err2('@hist_linear(a, "1", 2, 3)')).to.equal("parse error: expected number\n        saw: string '1' at <input>:1:35");
    // strings: a string token (adjacent ones joined), @cast's type and @const's name not empty
    expect(err2('@cast(p)')).to.equal("parse error: expected ','\n        saw: operator ')' at <input>:1:26");
    expect(err2('@cast(p, "t", )')).to.equal("parse error: expected string\n        saw: operator ')' at <input>:1:33");
    expect(err2('@cast(p, "", "m")')).to.equal("parse error: expected non-empty string\n        saw: operator ',' at <input>:1:30");
    expect(err2('@cast(p, "t", "m", 1)')).to.equal("parse error: expected ')'\n        saw: operator ',' at <input>:1:36");
    expect(err2('@var(1)')).to.equal("parse error: expected string\n        saw: number '1' at <input>:1:24");
    expect(canon('@var("")')).to.equal('@var("")');
    expect(err2('@perf(x+1)')).to.equal("parse error: expected literal string\n        saw: identifier 'x' at <input>:1:25");
    expect(err2('@perf("a", 1)')).to.equal("parse error: expected ')'\n        saw: operator ',' at <input>:1:28");
    expect(err2('@const(x)')).to.equal("parse error: expected string\n        saw: identifier 'x' at <input>:1:26");
    expect(err2('@const("")')).to.equal("parse error: expected non-empty string\n        saw: operator ')' at <input>:1:28");
  });

  it('a CONFIG_ option that is not set compares as the number 0', () => {
    expect(parse('probe %( CONFIG_NO_SUCH_OPTION == 0 %? begin %: end %) {}').file!.probes[0].points[0].components[0].name).to.equal('begin');
    expect(parse('probe %( CONFIG_NO_SUCH_OPTION == 1 %? begin %: end %) {}').file!.probes[0].points[0].components[0].name).to.equal('end');
    expect(errorOf('probe %( CONFIG_X86_64 == 1 %? begin %: end %) {}')).to.equal('parse error: Config option value not a number');
  });

  it('pretty-printing after `)` and `]`, `$v[i]` targets, prefix ++/-- take a value', () => {
    expect(canon('@cast(t, "task_struct")$$')).to.equal('@cast(t, "task_struct")->$$');
    expect(canon('$x[1]$')).to.equal('$x[1]->$');
    expect(canon('$filename[0]')).to.equal('$filename[0]');
    expect(errorOf('probe begin { x = (a + 1)$ }')).to.equal('parse error: expected @cast, @var or $var');
    const r = parse('probe begin { a --\n -- a\n ++ a }');
    expect(r.errors).to.equal('');
    expect(r.file!.probes[0].body.stmts.length).to.equal(3);
  });

  it("'?', '!' and conditions only apply to a whole brace-expanded point", () => {
    expect(errorOf('probe {a!}.{b,c}? {}')).to.equal("parse error: '?', '!' or condition must only be specified in suffix");
    expect(errorOf('probe {a if (1)}.{b,c} {}')).to.equal("parse error: '?', '!' or condition must only be specified in suffix");
    expect(parse('probe {a,b}.{c,d}! {}').file!.probes[0].points.map((p) => p.sufficient)).to.deep.equal([true, true, true, true]);
    // in the last group each alternative keeps its own suffix or condition (examples' cycle_thief.stp)
    const pts = parse('probe kernel.{trace("x")!, trace("y")} {}').file!.probes[0].points;
    expect(pts.map((p) => [p.optional, p.sufficient])).to.deep.equal([[true, true], [false, false]]);
    expect(parse('probe a.{b if (1), c} {}').file!.probes[0].points.map((p) => !!p.condition)).to.deep.equal([true, false]);
    expect(errorOf('probe a.{b!, c}.d {}')).to.equal("parse error: '?', '!' or condition must only be specified in suffix");
    expect(errorOf('probe a.{b!, c}? {}')).to.equal("parse error: '?' or '!' respecified");
  });

  it('a probe point takes one `?` or `!`, then ends at , { } = or += (real-stap -p1 on each)', () => {
    for (const p of ['probe begin?! {}', 'probe begin?? {}', 'probe begin if (1) ? {}', 'probe begin x', 'probe {a b} {}', 'probe a = begin']) {
      expect(errorOf(p), p).to.equal("parse error: expected one of ', { } = +='");
    }
    // a `}` or an alias `=` after a point that is not the first gets past that, then is refused
    for (const p of ['probe begin }', 'probe begin if (1) }', 'probe a, b = begin {}', 'probe a, b += begin {}', 'probe a = b, c = d {}', 'probe a = begin }']) {
      expect(errorOf(p), p).to.equal('parse error: expected probe point specifier');
    }
    expect(errorOf('probe {begin = x} {}')).to.equal("parse error: expected '}'");
    expect(parse('probe a = begin = x {}').file!.aliases[0].names.map((n) => n.components[0].name)).to.deep.equal(['a', 'begin']);
  });
});
