/**
 * Replay recorded oracle tables (test/oracle/*.json) against this project's `stap` and print
 * where it differs (exit status, stderr, stdout), most frequent first:
 *
 *   npm run build && node dist/scripts/oracle/compare.js [TABLE...] [--show N] [--id SUBSTRING] [--write-known]
 *
 * --write-known rewrites test/oracle/known_differences.txt with the cases that differ (all tables).
 */
import * as fs from 'fs';
import * as path from 'path';
import { RecordedCase } from './cases';
import { loadRecorded, caseDiff } from './replay';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let show = 20;
  let idFilter = '';
  let writeKnown = false;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--show') show = Number(argv[++i]);
    else if (argv[i] === '--id') idFilter = argv[++i];
    else if (argv[i] === '--write-known') writeKnown = true;
    else names.push(argv[i]);
  }
  const dir = path.join(__dirname, '..', '..', '..', 'test', 'oracle');
  let total = 0;
  let bad = 0;
  const differing: string[] = [];
  for (const t of loadRecorded(dir, names)) {
    const fails: { c: RecordedCase; d: string }[] = [];
    for (const c of t.cases) {
      if (idFilter && !c.id.includes(idFilter)) continue;
      total++;
      const d = await caseDiff(c);
      if (d) fails.push({ c, d });
    }
    bad += fails.length;
    for (const f of fails) differing.push(`${t.table}/${f.c.id}`);
    process.stdout.write(`== ${t.table}: ${fails.length} of ${t.cases.length} differ\n`);
    for (const f of fails.slice(0, show)) process.stdout.write(`-- ${f.c.id}: stap ${f.c.args.map((a) => JSON.stringify(a)).join(' ')}\n${f.d}\n`);
  }
  process.stdout.write(`${total - bad} of ${total} cases agree\n`);
  if (writeKnown) {
    if (names.length || idFilter) throw new Error('--write-known compares every table: give no TABLE or --id');
    fs.writeFileSync(path.join(dir, 'known_differences.txt'),
      '# oracle cases tapsim does not agree with yet (test/oracle/oracle.test.ts); this list may only shrink\n' +
      differing.map((l) => l + '\n').join(''));
  }
}

main().catch((e) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e) + '\n');
  process.exit(1);
});
