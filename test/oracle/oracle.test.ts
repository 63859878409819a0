/**
 * Oracle tables: what real SystemTap 4.8 printed and exited with for thousands of generated
 * pass 1-2 invocations (test/oracle/<table>.json, recorded by scripts/oracle/record.ts from
 * the generators in scripts/oracle/tables/), replayed against tapsim in-process.  Each case
 * must agree on the exit status and stderr, and on stdout unless the case says otherwise.
 *
 * Cases tapsim does not agree with yet are listed in test/oracle/known_differences.txt (one
 * `table/id` a line): the list may only shrink.  A listed case that now agrees is reported so
 * the list can be regenerated (`node dist/scripts/oracle/compare.js --write-known`);
 * `node dist/scripts/oracle/compare.js [TABLE]` shows the differences in bulk.
 */
import { expect } from 'chai';
import * as path from 'path';
import { loadRecorded, caseDiff, loadKnownDifferences } from '../../scripts/oracle/replay';

const dir = path.join(__dirname, '..', '..', '..', 'test', 'oracle');

describe('oracle tables (real stap 4.8, passes 1-2)', function () {
  this.timeout(600000);
  const known = loadKnownDifferences(dir);
  for (const t of loadRecorded(dir)) {
    it(`${t.table}: ${t.cases.length} cases agree with stap (but the known differences)`, async () => {
      const bad: string[] = [];
      let fixed = 0;
      for (const c of t.cases) {
        const d = await caseDiff(c);
        const listed = known.has(`${t.table}/${c.id}`);
        if (d && !listed) bad.push(`${c.id}: stap ${c.args.map((a) => JSON.stringify(a)).join(' ')}\n${d}`);
        if (!d && listed) fixed++;
      }
      if (fixed) console.log(`      (${t.table}: ${fixed} known differences now agree: regenerate known_differences.txt)`);
      expect(bad.length, `${bad.length} of ${t.cases.length} newly differ; first:\n${bad.slice(0, 5).join('\n')}`).to.equal(0);
    });
  }
});
