/**
 * Issue 16's leftovers (scripts written for it, one behaviour each): statements after
 * `return`/`next`/`break`/`continue` (stap's dead-control remover, and what it makes pure),
 * `catch (e)` with an unused e, `delete` as a read for the end-of-run display of globals, the
 * errors after a bad `%( )%` condition, `begin?`/`begin!` in -p2 and -l, probe conditions in
 * -p2 (the arming begin probe, the point as printed), --skip-badvars, -l of patterns that do not parse;
 * the globals -u lists, @probewrite outside an alias epilogue.
 */
import { OracleCase, Table, p1, p2, p2Pairs } from '../cases';

/** -u: which globals pass 2 lists (unused ones not, whatever -u), and what constant folding leaves written for the display. */
const UNOPT_GLOBALS = [
  'global g probe begin { println(2) }',
  'global g = 1 probe begin { println(2) }',
  'global g = 1 probe begin { println(g) }',
  'global g, h = 2 probe begin { println(2) } probe end { h = 1 }',
  'global a probe begin { if (0) a[1] = 1; println(1) }',
  'global a probe begin { if (0) println(a[1]); a[1] = 2 }',
  'global x = 5 probe begin { }',
];

/** @probewrite outside an alias epilogue: in a probe stap ends with its text; in a function it is an error as others. */
const PROBEWRITE = [
  'probe begin { println(@probewrite(x)) }',
  'probe begin { x = @probewrite(y) }',
  'probe begin { println(@probewrite(x)) } probe end { println(@probewrite(y)) }',
  'function f() { return @probewrite(x) } probe begin { println(f()) }',
  'function f() { if (1) { return @probewrite(x) } } probe begin { println(f()) }',
  'probe begin { println(1); println(@probewrite(x)); println(y + "a") }',
];

const CONTROL = [
  'function g() { return 1; println(2) } probe begin { g() }',
  'function g() { println(1); return 1; println(2) } probe begin { g() }',
  'function g() { return 1; println(y) } probe begin { println(g()) }',
  'function g() { return 1; x = "a" + 1 } probe begin { println(g()) }',
  'function g() { { return 1 } println(4) } probe begin { g() }',
  'function g() { if (randint(2)) { return 1; println(2) } return 0 } probe begin { g() }',
  'probe begin { next; println(2) }',
  'global x probe begin { for (;;) { break; x++ } }',
  'global x probe begin { while (1) { continue; x++ } }',
  'global c probe begin { foreach (i in c) { continue; println(i) } }',
  'global a probe begin { a = 1; exit(); next; a = 2 } probe end { println(a) }',
  'probe begin { { next } println(y) }',
  'probe begin { { println(3); next } println(y) }',
  'probe begin { if (randint(2)) next; else next; println(y) }',
  'probe begin { try { next } catch { next } println(y) }',
  'probe begin { { { next } println(5) } println(y) }',
  'probe begin { while (1) { { break } println(y) } println(2) }',
  'function f() { return 1 } probe begin { next; f() }',
];

const CATCH = [
  'probe begin { try { println(1) } catch (e) { } }',
  'probe begin { try { println(1) } catch (e) { println(e) } }',
  'function f() { try { println(1) } catch (e) { } } probe begin { f() }',
  'function f(e) { try { println(1) } catch (e) { } } probe begin { f(1) }',
  'probe begin { try { println(1) } catch (e) { e = "x" } }',
  'probe begin { try { println(1) } catch (e) { } ; e = 1 }',
  'probe begin { e = 1; try { println(1) } catch (e) { } }',
  'probe begin { try { println(1) } catch (e) { } ; 1 + 2 }',
  'probe begin { try { println(1) } catch (e) { } } probe end { x = 1 }',
  'probe begin { try { println(1) } catch (e) { } try { println(2) } catch (e) { } }',
  'probe begin { try { println(1) } catch (e) { } ; e = 1; println(e) }',
  'global e probe begin { try { println(1) } catch (e) { } }',
  'global x probe begin { x = 1; try { println(1) } catch (e) { } }',
];

const DISPLAY = [
  'global a probe begin { a[1] = 1; delete a }',
  'global a probe begin { a[1] = 1; delete a[1] }',
  'global x probe begin { x = 1; delete x }',
  'global a probe begin { a[1] = 1 } probe end { delete a }',
  'global s probe begin { s <<< 1; delete s }',
  'global a probe begin { delete a }',
  'global a, b probe begin { a[1] = 1; b[1] = 2; delete b }',
];

const PP = [
  'probe begin { %( nosuch == 1 %? println(1) %) }',
  'probe begin { %( 1 == %? println(1) %) } probe end { x }',
  '%( kernel_vr == 1 %? probe begin {} %)',
  '%( kernel_vr == 1 %? probe begin {} %) probe end { println(2) }',
  'probe begin { %( kernel_v >= "2.6" && nosuch == 1 %? println(1) %: println(2) %) }',
  'probe begin { %( kernel_v >= "2.6" || 1 1 1 %? println(1) %: println(2) %) }',
  'probe begin { %( arch == "x86_64" 1 %? println(1) %) } probe end { }',
  'probe begin { println(1) } %? probe end { } %: probe end { } %)',
  'probe begin { println(1) } %)',
  'probe begin { %( 1 == 1 %? println(%( "a" < 2 %? 1 %: 2 %)) %) }',
  'probe begin { %( CONFIG_NOSUCH == y %? println(1) %: println(2) %) } probe end { %( 2 %? 1 %) }',
  'probe begin { %( $1 == 1 %? println(1) %) }',
  'probe begin { %( "a" == "a" && %? println(1) %) }',
  'probe begin { %( 1 %) }',
  'probe begin { %( %) }',
  'probe begin { x = 1 %? 2 %: 3 }',
];

const MARKS = [
  'probe begin? { println(1) }',
  'probe begin! { println(1) }',
  'probe begin?, end! { println(1) }',
  'probe timer.s(1)?, timer.s(2)! { println(1) }',
  'probe nosuch?, begin! { println(1) }',
  'probe a = begin { } probe a? { println(1) }',
  'probe a = begin? { } probe a { println(1) }',
  'probe a = begin! { } probe a? { println(1) }',
  'probe a = begin, end? { } probe a! { println(1) }',
  'probe be*? { println(1) }',
  'probe begin if (1) { println(1) }',
  'probe timer.s(1) if (0) { println(1) }',
  'global g probe begin if (g) { println(1) } probe end { g = 1 }',
  'global g probe timer.s(1) if (g > 1) { println(1) } probe end { g = 1 }',
  'global g, h probe begin?, end if (g) { println(1) } probe end { g = 1 }',
  'global g probe a = begin if (g) { } probe a { println(1) } probe end { g = 1 }',
];

const LIST = ['begin?', 'begin!', 'be*?', 'begin, end?', 'timer.s(1)?', 'timer.s(1)!', 'end!', 'timer.s()', 'timer.ms()', 'begin()', 'timer.s(1', 'timer.s(*)?'];

const SKIP = [
  'probe begin { println($nosuch) }',
  'probe timer.s(1) { x = $nosuch->a; println(x) }',
  'probe begin { $nosuch = 1 }',
  'probe begin { println(@defined($nosuch)) }',
  'probe begin { println($nosuch$, $a + $b) }',
  'probe begin { if (@defined($x)) println($x) else println(1) }',
];

export const leftovers: Table = {
  name: 'leftovers',
  about: 'dead control flow, unused catch variables, delete and the global display, %( %) error cascades, ?/! marks, conditions',
  cases(): OracleCase[] {
    const out: OracleCase[] = [];
    UNOPT_GLOBALS.forEach((s, i) => out.push(p2(`unopt-global:${i}`, s, '-u')));
    PROBEWRITE.forEach((s, i) => out.push(p2(`probewrite:${i}`, s)));
    out.push(...p2Pairs('control', CONTROL, 'W', '-W'));
    out.push(...p2Pairs('catch', CATCH, 'u', '-u'));
    DISPLAY.forEach((s, i) => out.push(p2(`display:${i}`, s)));
    PP.forEach((s, i) => out.push(p1(`pp:${i}`, s)));
    MARKS.forEach((s, i) => out.push(p2(`mark:${i}`, s)));
    SKIP.forEach((s, i) => {
      out.push(p2(`skip:${i}`, s, '--skip-badvars'));
      out.push(p2(`skip:${i}:w`, s, '--skip-badvars', '-w'));
    });
    LIST.forEach((s, i) => {
      out.push({ id: `l:${i}`, args: ['-l', s] });
      out.push({ id: `L:${i}`, args: ['-L', s] });
    });
    return out;
  },
};
