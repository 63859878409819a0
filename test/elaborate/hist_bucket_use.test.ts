/**
 * A histogram bucket as a target (stap's varuse): `delete`, and an increment or compound
 * assignment whose value is used, read its statistics, so the global is not displayed at the end
 * of the run as written-only; `=`, and a discarded `++`, `--` or `op=`, do not (real-stap -p2, and
 * -u -p2 where pass 2 refuses the assignment; oracle semantics body:167, sweep lv*:hist:*,
 * lvalues lvo:8:u).
 */
import { expect } from 'chai';
import { p2 } from '../helpers/p2';

describe('elaborate: a histogram bucket as a target', () => {
  const display = (src: string): boolean => p2(src, true).out.includes('end /* <- end */');
  it('reads the statistics when deleted, or changed for its value', () => {
    for (const body of ['delete @hist_log(s)[1]; println(1)', 'z = (++@hist_log(s)[1]); println(z)', 'x = (@hist_log(s)[1] -= 1); println(x)', 'x = @hist_log(s)[1]--; println(x)']) {
      expect(display(`global s probe begin { s <<< 1; ${body} }`), body).to.equal(false);
    }
    expect(p2('global s probe begin { s <<< 1; delete @hist_log(s)[1]; println(1) }').out).to.not.contain('end /*');
  });
  it('is only written by =, and by a discarded ++, -- or op=', () => {
    for (const body of ['@hist_log(s)[1]++', '++@hist_log(s)[1]', '@hist_log(s)[1]--; println(1)', 'for (@hist_log(s)[1]++;0;) {}',
      '@hist_log(s)[1] -= 1', '@hist_log(s)[1] = 2', 'x = (@hist_log(s)[1] = 1); println(x)']) {
      expect(display(`global s probe begin { s <<< 1; ${body} }`), body).to.equal(true);
    }
  });
});
