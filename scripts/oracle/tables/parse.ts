/**
 * Malformed (and a few well-formed corner) inputs for every grammar production: top-level
 * declarations, probe points, statements, expressions, literals, comments, embedded code,
 * the preprocessor and macros; `-p1` decides (message text and exit status).
 */
import { OracleCase, Table, p1 } from '../cases';

const TOP = [
  '', ';', 'probe', 'probe begin', 'probe begin {', 'probe begin }', 'probe {}', 'probe begin(1 {}', 'probe begin() {}',
  'probe begin("x") {}', 'probe begin(-1) {}', 'probe begin(+1) {}', 'probe begin(0x10) {}', 'probe begin(1.5) {}',
  'probe begin(1,2) {}', 'probe begin.x {}', 'probe begin. {}', 'probe .begin {}', 'probe begin..end {}',
  'probe begin, {}', 'probe , begin {}', 'probe begin end {}', 'probe begin? {}', 'probe begin! {}', 'probe begin?! {}',
  'probe begin!? {}', 'probe begin?? {}', 'probe begin if (1) {}', 'probe begin if 1 {}', 'probe begin if (1) if (2) {}',
  'probe begin? if (1) {}', 'probe begin if (1)? {}', 'probe begin = end {}', 'probe a = begin {}', 'probe a = begin',
  'probe a = begin {} {}', 'probe a = begin {}, {}', 'probe a += begin {}, {}', 'probe a? = begin {}', 'probe a! = begin {}',
  'probe a = begin if (1) {}', 'probe a.b(1) = begin {}', 'probe a.* = begin {}', 'probe a = {}', 'probe a, b = begin {}',
  'probe * {}', 'probe ** {}', 'probe begin.** {}', 'probe kernel.function("f").* {}', 'probe 1 {}', 'probe "x" {}',
  'probe begin { } }', 'probe begin { { }', 'probe begin {} probe', 'probe %( 1 %? begin %: end %) {}',
  'global', 'global ;', 'global x,', 'global x y', 'global 1', 'global x = ', 'global x = 1 + 1', 'global x = -1',
  'global x = "s"', 'global x = -"s"', 'global x[', 'global x[]', 'global x[0]', 'global x[-1]', 'global x[1', 'global x[a]',
  'global x[10] = 1', 'global x%', 'global x%[10]', 'global x[10]%', 'global x%%', 'global x, x', 'global x; global x',
  'global x = 1, y = "a"', 'global long x', 'global x:long', 'global x:string', 'global x:stats', 'global x:foo',
  'global x = 0x', 'global x = 99999999999999999999', 'global x = -9223372036854775809', 'global x = 9223372036854775808',
  'global x = 18446744073709551615', 'global x = 18446744073709551616', 'global x = 0xffffffffffffffff', 'global x = 0x1ffffffffffffffff',
  'private', 'private x', 'private global x', 'private function f() {}', 'private probe begin {}', 'private private x',
  'function', 'function f', 'function f(', 'function f()', 'function f() {', 'function f) {}', 'function f(,) {}',
  'function f(a,) {}', 'function f(a b) {}', 'function f(a, a) {}', 'function f(1) {}', 'function f():long {}',
  'function f:long() {}', 'function f:string() {}', 'function f:stats() {}', 'function f:foo() {}', 'function f:long {}',
  'function f(a:long) {}', 'function f(a:string, b:long) {}', 'function f(a:stats) {}', 'function f(a:foo) {}', 'function f(a:) {}',
  'function f() %{ %}', 'function f() %{', 'function f() {} %}', 'function 1() {}', 'function f() {} function f() {}',
  'function f(a) {} function f(a) {}', 'function f() {} function f(a) {}', 'function f:long() %{ /* pure */ %}',
  'function f() { return }', 'function f() { return; }', 'function f() { return 1, 2 }', 'function f() { return return }',
  'function f(a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,aa,ab,ac,ad,ae,af,ag) {}',
  'function f() {} :1', 'function begin() {}', 'function probe() {}', 'function global() {}', 'function if() {}',
  '%{ %}', '%{', '%{ }%', '%}', 'probe begin { %{ %} }', 'probe begin { x = %{ 1 %} }', 'probe begin %{ %}',
  'x = 1', 'if (1) {}', '{ }', 'begin {}', 'probes begin {}', 'Probe begin {}', '@define', '@define x', '@define x %(',
  '@define x %( 1', '@define x %( 1 %)', '@define x(a %( a %)', '@define x(a,) %( a %)', '@define x() %( 1 %)',
  '@define x(a, a) %( a %)', '@define @x %( 1 %)', '@define 1 %( 1 %)', '@define x %( @define y %( 1 %) %)',
  '@define x %( 1 %) @define x %( 2 %)', '@define defined %( 1 %)', '@define cast %( 1 %)', '@define entry %( 1 %)',
  '@define x %( 1 %) probe begin { @x() }', '@define x(a) %( a %) probe begin { @x }', '@define x(a) %( a %) probe begin { @x(1, 2) }',
  '@define x(a,b) %( a %) probe begin { @x(1) }', '@define x(a) %( a %) probe begin { @x( }', 'probe begin { @nosuch }',
  'probe begin { @nosuch(1) }', 'probe begin { @1 }', 'probe begin { $1 }', 'probe begin { @ }', 'probe begin { $ }',
  'probe begin { $$ }', 'probe begin { @@ }', 'probe begin { x = @define }',
];

const STMT = [
  'x', 'x =', '= 1', 'x = 1 1', 'x = (1', 'x = 1)', 'x = [1]', 'x = {1}', 'x = ;', 'x == 1', 'x === 1', 'x =! 1',
  'if', 'if (', 'if ()', 'if (1', 'if (1)', 'if 1 x = 1', 'if (1) else', 'if (1) x = 1 else', 'if (1) ; else ;', 'else x = 1',
  'if (1) x = 1 else else x = 2', 'while', 'while (', 'while ()', 'while (1', 'while (1)', 'while 1 break', 'do x = 1 while (1)',
  'for', 'for (', 'for ()', 'for (;;', 'for (;;)', 'for (;;) break', 'for (;) break', 'for (;;;) break', 'for (x = 1; x < 2) break',
  'for (x = 1, y = 2; x < 2; x++) break', 'for (var x = 1; x < 2; x++) break', 'for (x in a) break',
  'foreach', 'foreach (', 'foreach ()', 'foreach (x)', 'foreach (x in)', 'foreach (in a)', 'foreach (x in a', 'foreach (x in a)',
  'foreach (x in a) break', 'foreach (x in a+) break', 'foreach (x+ in a+) break', 'foreach (x- in a) break', 'foreach (x++ in a) break',
  'foreach (x in a limit) break', 'foreach (x in a limit 5) break', 'foreach (x in a limit -1) break', 'foreach (x in a limit 5 limit 6) break',
  'foreach ([x] in a) break', 'foreach ([x, y] in a) break', 'foreach ([x, y in a) break', 'foreach ([x,] in a) break',
  'foreach ([] in a) break', 'foreach ([x+, y-] in a) break', 'foreach ([x+, y+] in a) break', 'foreach (v = x in a) break',
  'foreach (v = [x] in a) break', 'foreach (v = [x, y] in a) break', 'foreach (v+ = x in a) break', 'foreach (v = x+ in a) break',
  'foreach (v = x in a+) break', 'foreach (1 in a) break', 'foreach (x in 1) break', 'foreach (x in a[1]) break',
  'foreach (x in a[*]) break', 'foreach ([x, y] in a[*, 1]) break', 'foreach ([x, y] in a[1]) break', 'foreach (x in @hist_log(s)) break',
  'foreach (x in a) limit 5 break', 'foreach x in a break', 'break', 'continue', 'next', 'return', 'return 1', 'break 1', 'continue x',
  'next 1', 'delete', 'delete 1', 'delete x', 'delete a[1]', 'delete a[1,2]', 'delete a[*]', 'delete x y', 'delete (x)',
  'try', 'try {', 'try {}', 'try {} catch', 'try {} catch {}', 'try {} catch (e) {}', 'try {} catch(e {}', 'try {} catch () {}',
  'try {} catch (1) {}', 'try {} catch (e) {} catch {}', 'try x = 1 catch {}', 'try {} catch x = 1', 'try {} finally {}', 'catch {}',
  '{', '}', '{ { }', ';;', '; ;', 'x = 1;;', 'x = 1 ; ; y = 2', 'x++ ++', '++x++', '++', '--', 'x + + 1', 'x - - 1',
  '1 = x', '"s" = x', 'x = "unterminated', "x = 'c'", 'x = "a\\', 'x = "\\x"', 'x = "\\xq"', 'x = "\\400"', 'x = "\\777"', 'x = "\\q"',
  'x = "a" "b"', 'x = "a" /* c */ "b"', 'x = "a" // c\n "b"', 'x = "a" # c\n "b"', 'x = /* unterminated', 'x = 1 /* */ 2',
  'x = 0x', 'x = 0xg', 'x = 1a', 'x = 09', 'x = 0b101', 'x = 1_000', 'x = 1.0', 'x = .5', 'x = 1e5', 'x = -0x8000000000000000',
  'x = 0x8000000000000000', 'x = 0xffffffffffffffff', 'x = 0x10000000000000000', 'x = 9223372036854775807', 'x = 9223372036854775808',
  'x = -9223372036854775808', 'x = 18446744073709551615', 'x = 18446744073709551616', 'x = 077777777777777777777', 'x = 0777777777777777777777',
  'x = a[]', 'x = a[1', 'x = a[1,]', 'x = a[,1]', 'x = a[1][2]', 'x = a[*]', 'x = a[1,*]', 'x = f(', 'x = f(,)', 'x = f(1,)', 'x = f(1 2)',
  'x = f()()', 'x = (f)()', 'x = 1 ? 2', 'x = 1 ? : 2', 'x = ? 1 : 2', 'x = 1 ? 2 : ', 'x = 1 ?? 2', 'x = a in', 'x = in a', 'x = [1] in a',
  'x = [1, 2] in', 'x = [] in a', 'x = [1 in a', 'x = 1, 2', 'x <<< ', '<<< 1', 'x <<< 1 <<< 2', 'x = @count', 'x = @count(', 'x = @count()',
  'x = @count(a, b)', 'x = @count(1)', 'x = @sum(a[1])', 'x = @hist_log', 'x = @hist_linear(a)', 'x = @hist_linear(a, 1)',
  'x = @hist_linear(a, 1, 2)', 'x = @hist_linear(a, 1, 2, 3, 4)', 'x = @hist_linear(a, "1", 2, 3)', 'x = @hist_linear(a, b, 2, 3)',
  'x = @hist_linear(a, -1, 2, 3)', 'x = @hist_log(a, 1)', 'x = @foo(a)', 'x = @variance(a, 1)', 'x = @variance(a, -1)', 'x = @variance(a, x)',
  'x = @cast', 'x = @cast(', 'x = @cast(p)', 'x = @cast(p, 1)', 'x = @cast(p, "t", )', 'x = @cast(p, "t")->', 'x = @cast(p, "t")->1',
  'x = @var', 'x = @var(', 'x = @var(1)', 'x = @var("x", 1)', 'x = @entry', 'x = @entry(', 'x = @entry()', 'x = @defined', 'x = @defined()',
  'x = @defined(1)', 'x = @probewrite', 'x = @probewrite()', 'x = @probewrite(1)', 'x = @const', 'x = @const()', 'x = @const(1)',
  'x = $', 'x = $$', 'x = $$$', 'x = $1$', 'x = $x$$$', 'x = $x->', 'x = $x->1', 'x = $x[', 'x = $x[]', 'x = &', 'x = &1', 'x = &$x',
  'x = &&$x', 'x = & & $x', 'x = *$x', 'x = $x.y', 'x = $x->y$', 'x = @this', 'x = @this1', 'x = @this9', 'x = @kregister(1)',
  'x = @uregister(1)', 'x = @kderef(1, 2)', 'x = @uderef(1)', 'x = @perf("x")', 'x = @perf', 'x = @module_container_of', 'x = @enum("X")',
  'x = sizeof(1)', 'x = typeof(1)', 'x = new 1', 'x = 1 : 2', 'x = a . . b', 'x = a .. b', 'x = a .= b', 'x = a ... b', 'x = 1 >>>= 2',
  'x <<= 1 1', 'x = a =~', 'x = =~ "a"', 'x = a =~ b', 'x = a !~ ', 'x ~= 1', 'x = a ! b', 'x = !', 'x = ~', 'x = - ', 'x = (', 'x = ()',
  'x = (1)(2)', 'x = a->b', 'x = a.b', 'x = a::b', 'x = a#b', 'x = 1 ;; }', 'println(', 'println(1', 'println(1,', 'println 1',
  'printf()', 'printf(1)', 'printf("%d")', 'printf(x)', 'print(@hist_log(a), 1)', 'sprintf()', 'x = sprintf', 'x = print(1)',
  'x = string(1)', 'long x = 1', 'var x = 1', 'let x = 1', 'local x', 'global x', 'function f() {}', 'probe begin {}', 'private x = 1',
  'if (1) {} else if (2) {} else {}', 'if (x = 1) {}', 'while (x = 0) {}', 'for (;x = 0;) {}', 'switch (x) {}', 'goto a', 'a: x = 1',
];

export const parse: Table = {
  name: 'parse',
  about: 'malformed and corner-case inputs for every grammar production, checked at -p1',
  cases(): OracleCase[] {
    const out: OracleCase[] = [];
    TOP.forEach((t, i) => out.push(p1(`top:${i}`, t)));
    STMT.forEach((s, i) => out.push(p1(`stmt:${i}`, `probe begin { ${s} }`)));
    // the same statements at the end of input without the closing brace (EOF messages)
    ['x = ', 'if (1', 'foreach (x in a', '"abc', '/* c', 'x = 1 +', 'f(1,'].forEach((s, i) => out.push(p1(`eof:${i}`, `probe begin { ${s}`)));
    // several errors in one input: which are reported, deduplicated, with which file names
    out.push(p1('multi:same', 'probe begin { x = }\nprobe begin { y = }\nprobe begin { z = }'));
    out.push(p1('multi:diff', 'probe begin { x = }\nprobe begin { if }\nprobe begin { y = }'));
    out.push(p1('multi:recover-top', 'probe begin { x = }\nglobal g\nfunction f( {}\nprobe end { }'));
    out.push(p1('multi:E', 'probe begin { x = }', '-E', 'probe end { y = }'));
    return out;
  },
};
