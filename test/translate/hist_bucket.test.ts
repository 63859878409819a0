/**
 * Histogram buckets are read-only.  Pass 2 refuses assigning one (`Expecting lvalue`) and, in a
 * function body, ++/-- or delete of one; a delete in a probe body passes pass 2 and is refused by
 * the translator.  Expected texts from real-stap (Debian's stap 4.8):
 *   real-stap -p3 -e 'global s probe begin { s <<< 1; delete @hist_log(s)[1]; println(@count(s)); exit() }'
 * (pass-2 cases are in test/oracle/sweep.json, ids lv:hist:* and lvf:hist:*).
 */
import { expect } from 'chai';
import { runTapsim } from '../../scripts/oracle/tapsim_inproc';

describe('translate: histogram bucket writes', function () {
  this.timeout(60000);
  it('refuses deleting a histogram bucket at pass 3, in stap\'s words', async () => {
    const r = await runTapsim(['-p3', '-e', 'global s probe begin { s <<< 1; delete @hist_log(s)[1]; println(@count(s)); exit() }']);
    expect(r.exit).to.equal(1);
    expect(r.err).to.contain("semantic error: cannot delete histogram bucket entries\n: operator '@hist_log' at <input>:1:40\n");
    expect(r.err).to.contain('Pass 3: translation failed.');
  });
  it('refuses ++ on a histogram bucket in a function at pass 2', async () => {
    const r = await runTapsim(['-p2', '-e', 'global s function h() { s <<< 1; @hist_linear(s, 0, 10, 1)[2]++ } probe begin { h() }']);
    expect(r.exit).to.equal(1);
    expect(r.err).to.contain("semantic error: Assignment to read-only histogram bucket: operator '@hist_linear' at <input>:1:34");
  });
});
