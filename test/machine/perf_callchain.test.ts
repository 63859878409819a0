/**
 * perf report's call graphs against real perf: test/fixtures/perf-host/ holds samples recorded with
 * kernel callchains by Debian 12's linux-perf 6.1 on a real kernel (perf script's dump) and the two
 * reports real perf printed of them (--stdio with its default --children caller graphs, and
 * --no-children callee graphs); scripts/perf/record-host-callchains.sh made them.  The machine's
 * report (src/machine/userland/perf/report.ts, callchain.ts) is given the same samples and must
 * print the same bytes (perf's random closing tip aside).
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import { formatReport, DecodedSample, ResolvedSym, ReportMode } from '../../src/machine/userland/perf/report';

const dir = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'perf-host');

interface Parsed { samples: DecodedSample[]; syms: Map<number, ResolvedSym> }

/** perf script -F comm,tid,period,ip,sym,symoff,dso */
function parseScript(text: string): Parsed {
  const samples: DecodedSample[] = [];
  const syms = new Map<number, ResolvedSym>();
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    if (!lines.length) continue;
    const h = /^\s*(\S+)\s+(\d+)\s+(\d+)\s*$/.exec(lines[0]);
    if (!h) throw new Error(`bad sample header: ${lines[0]}`);
    const chain: number[] = [];
    for (const l of lines.slice(1)) {
      const f = /^\s*([0-9a-f]+) (\S+)\+0x([0-9a-f]+) \((\S+)\)$/.exec(l);
      if (!f) throw new Error(`bad frame: ${l}`);
      const ip = Number(BigInt.asIntN(64, BigInt(`0x${f[1]}`)));
      syms.set(ip, { name: f[2], start: ip - parseInt(f[3], 16), dso: f[4], kernel: f[4] === '[kernel.kallsyms]' });
      chain.push(ip);
    }
    samples.push({ ip: chain[0], pid: Number(h[2]), tid: Number(h[2]), time: 0, cpu: 0, period: Number(h[3]), callchain: chain, raw: [], comm: h[1], user: false });
  }
  return { samples, syms };
}

/** the report without perf's closing tip (3 lines) */
function withoutTip(s: string): string {
  const lines = s.split('\n');
  return lines.slice(0, lines.length - 4).join('\n') + '\n';
}

describe('perf report call graphs (against linux-perf 6.1)', () => {
  const { samples, syms } = parseScript(fs.readFileSync(path.join(dir, 'callchain.script'), 'latin1'));
  const sym = (a: number) => syms.get(a) ?? null;

  it('parses the recorded samples', () => {
    expect(samples.length).to.equal(105);
    expect(samples.every((s) => s.callchain.length > 1)).to.equal(true);
  });

  it('--children (the default): caller graphs under every function on the chains', () => {
    const mode: ReportMode = { graph: true, children: true, caller: true, minPercent: 0.5 };
    const want = fs.readFileSync(path.join(dir, 'callchain.children'), 'latin1');
    const got = withoutTip(formatReport('cpu-clock:k', 0, samples, sym, mode));
    expect(got.split('\n')).to.deep.equal(want.split('\n'));
  });

  it('--no-children: callee graphs under the sampled functions', () => {
    const mode: ReportMode = { graph: true, children: false, caller: false, minPercent: 0.5 };
    const want = fs.readFileSync(path.join(dir, 'callchain.nochildren'), 'latin1');
    const got = withoutTip(formatReport('cpu-clock:k', 0, samples, sym, mode));
    expect(got.split('\n')).to.deep.equal(want.split('\n'));
  });
});
