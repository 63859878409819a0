/**
 * Issue 16's leftovers of the 21:45 session, one behaviour each: a print without a format whose
 * argument does not resolve (the print stays unresolved, so what it is assigned to does too,
 * and the asserting pass reports the print's own token: the `Number of similar error messages
 * suppressed` counts), and `%( %)` conditionals whose nested condition fails inside a taken
 * branch (stap's scanner keeps the outer conditional open).
 */
import { OracleCase, Table, p1, p2 } from '../cases';

const PRINT = [
  'probe begin { z = sprint(y); println(z) }',
  'probe begin { print(1, y) }',
  'probe begin { printf("%s\\n", y) }',
  'probe begin { println(y, 1, z) }',
  'probe begin { x = sprintln(y) . "a"; println(x) }',
  'function f() { } probe begin { println(f()) }',
  'global g probe begin { print(g) }',
];

const NESTED = [
  'probe begin { %( 1 == 1 %? println(%( "a" < 2 %? 1 %: 2 %)) %: println(3) %) }',
  'probe begin { %( 1 == 0 %? println(1) %: println(%( 1 == 1 1 %? 1 %: 2 %)) %) }',
  'probe begin { %( 1 == 1 %? %( 1 == 1 %? println(1) }',
  'probe begin { %( 1 == 1 %? println(1) %: println(2) %: println(3) %) }',
  'probe begin { %( 1 == 1 %? %( kernel_v >= 2 %? println(1) %) %) } probe end { println(2) }',
  'probe begin { %( 1 == 0 %? %( nosuch == 1 %? 1 %) %: println(2) %) }',
];

export const cascades: Table = {
  name: 'cascades',
  about: 'unresolved print arguments, failing nested %( %) conditions',
  cases(): OracleCase[] {
    const out: OracleCase[] = [];
    PRINT.forEach((s, i) => out.push(p2(`print:${i}`, s)));
    NESTED.forEach((s, i) => out.push(p1(`nested:${i}`, s)));
    return out;
  },
};
