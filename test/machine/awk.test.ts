/**
 * awk against Debian 12's awk (mawk 1.3.4 20200120, the host's and the real guest's /usr/bin/awk):
 * awk_cases.json holds each case's arguments and input with what mawk printed (stdout, stderr, exit
 * status), recorded by scripts/awk/record_cases.py. The cases run through the interpreter directly,
 * and a few pipelines through the machine's shell.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import { compileAwk, readsInput, runAwk, Operand } from '../../src/machine/userland/awk/interp';
import { Machine } from '../../src/machine/machine';

interface Case { args: string[]; input?: string; files?: Record<string, string>; out: string; err: string; status: number }
const cases: Case[] = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'test', 'machine', 'awk_cases.json'), 'utf8'));

/** the command line as programs/awk.ts reads it, without the machine */
function run(c: Case): { out: string; err: string; status: number } {
  const argv = c.args;
  const assigns: [string, string][] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-') || a === '-') break;
    const v = a.length > 2 ? a.slice(2) : argv[++i];
    if (a.startsWith('-F')) assigns.push(['FS', v]);
    else if (a.startsWith('-v')) { const k = v.indexOf('='); assigns.push([v.slice(0, k), v.slice(k + 1)]); }
  }
  const prog = compileAwk(argv[i++]);
  if (typeof prog === 'string') return { out: '', err: prog, status: 2 };
  const operands: Operand[] = [];
  if (readsInput(prog)) {
    for (const a of argv.slice(i)) {
      const m = /^([A-Za-z_]\w*)=(.*)$/s.exec(a);
      if (m) operands.push({ assign: m[1], value: m[2] });
      else if (a === '-') operands.push({ file: '-', data: c.input ?? '' });
      else operands.push({ file: a, data: c.files?.[a] ?? null });
    }
  }
  const r = runAwk(prog, assigns, operands, () => c.input ?? '');
  return { out: r.out, err: r.err, status: r.status };
}

describe('awk (mawk 1.3.4 as Debian 12 has it)', () => {
  for (const c of cases) {
    it(`awk ${c.args.map((a) => (/[\s"'$]/.test(a) ? `'${a}'` : a)).join(' ').slice(0, 100)}`, () => {
      expect(run(c)).to.deep.equal({ out: c.out, err: c.err, status: c.status });
    });
  }

  it('in the machine: ps aux | awk, a sum over a file, -F and printf, output to a file', () => {
    const m = new Machine({ seed: 31 });
    m.fs.createFile('/tmp/t.sh', [
      "ps aux | awk 'NR > 1 { n++ } END { print (n > 5) }'",
      "printf '3\\n4\\n' > /tmp/n",
      "awk '{s+=$1} END {print s}' /tmp/n",
      "awk -F: '$3 == 0 { printf \"%s uses %s\\n\", $1, $7 }' /etc/passwd",
      "awk 'BEGIN { print \"x\" > \"/tmp/o\" }'",
      'cat /tmp/o',
      'readlink /bin',
      "ls -l / | awk '$1 ~ /^l/ { print $9, $10, $11 }'",
    ].join('\n') + '\n');
    const r = m.run('sh /tmp/t.sh');
    expect(r.out).to.equal('1\n7\nroot uses /bin/bash\nx\nusr/bin\nbin -> usr/bin\nlib -> usr/lib\nlib64 -> usr/lib64\nsbin -> usr/sbin\n');
  });
});
