/**
 * Issue 16's leftovers (scripts written for it, one behaviour each): statements after
 * `return`/`next`/`break`/`continue` (stap's dead-control remover, and what it makes pure),
 * `catch (e)` with an unused e, `delete` as a read for the end-of-run display of globals, the
 * errors after a bad `%( )%` condition, `begin?`/`begin!` in -p2 and -l, what -l accepts.
 */
import { OracleCase, Table, p2 } from '../cases';

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

export const leftovers: Table = {
  name: 'leftovers',
  about: 'dead control flow, unused catch variables, delete and the global display',
  cases(): OracleCase[] {
    const out: OracleCase[] = [];
    CONTROL.forEach((s, i) => {
      out.push(p2(`control:${i}`, s));
      out.push(p2(`control:${i}:W`, s, '-W'));
    });
    CATCH.forEach((s, i) => {
      out.push(p2(`catch:${i}`, s));
      out.push(p2(`catch:${i}:u`, s, '-u'));
    });
    DISPLAY.forEach((s, i) => out.push(p2(`display:${i}`, s)));
    return out;
  },
};
