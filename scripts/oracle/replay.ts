/**
 * Replaying a recorded oracle case against tapsim (shared by compare.ts and the test).
 */
import * as fs from 'fs';
import * as path from 'path';
import { RecordedCase, RecordedTable } from './cases';
import { runTapsim } from './tapsim_inproc';

export function loadRecorded(dir: string, names: string[] = []): RecordedTable[] {
  return fs.readdirSync(dir)
    .filter((f) => f.endsWith('.json') && (names.length === 0 || names.includes(f.slice(0, -5))))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'latin1')) as RecordedTable);
}

function firstDiff(what: string, want: string, got: string): string {
  const a = want.split('\n');
  const b = got.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      return `  ${what} line ${i + 1}:\n    stap:   ${JSON.stringify(a[i] ?? '<none>')}\n    tapsim: ${JSON.stringify(b[i] ?? '<none>')}`;
    }
  }
  return '';
}

/**
 * What the comparison ignores: parts of stap's answer that depend on the contents of its tapset
 * library rather than on the language (the names a `(similar: ...)` list offers; unless the case
 * compares them; the `# global embedded code` a tapset function's C pulls in; the locals of tapset functions in
 * -p2's `# functions`).  The user script's own functions keep their locals.
 */
export function normalizeAnswer(text: string, args: string[], similar = false): string {
  const script = args.join('\n');
  const own = new Set([...script.matchAll(/function\s+([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]));
  const out: string[] = [];
  let section = '';
  let keepLocals = true;
  for (const line of (similar ? text : text.replace(/ \(similar: [^)]*\)/g, ' (similar: ...)')).split('\n')) {
    if (/^# (globals|functions|probes|global embedded code)$/.test(line)) section = line;
    else if (section === '# global embedded code') continue;
    else if (section === '# functions') {
      if (!line.startsWith('  ')) keepLocals = own.has(line.split(':')[0]);
      else if (!keepLocals) continue;
    }
    if (line === '# global embedded code') continue;
    out.push(line);
  }
  return out.join('\n');
}

/** The `table/id` lines of known_differences.txt in `dir` (cases tapsim does not agree with yet). */
export function loadKnownDifferences(dir: string): Set<string> {
  const f = path.join(dir, 'known_differences.txt');
  if (!fs.existsSync(f)) return new Set();
  return new Set(fs.readFileSync(f, 'latin1').split('\n').filter((l) => l && !l.startsWith('#')));
}

/** '' when tapsim agrees with the recording, else a short description of the first differences. */
export async function caseDiff(c: RecordedCase): Promise<string> {
  const r = await runTapsim(c.args);
  const parts: string[] = [];
  if (r.exit !== c.exit) parts.push(`  exit: stap ${c.exit}, tapsim ${r.exit}`);
  const wantErr = normalizeAnswer(c.err, c.args, c.similar);
  const gotErr = normalizeAnswer(r.err, c.args, c.similar);
  if (gotErr !== wantErr) parts.push(firstDiff('stderr', wantErr, gotErr));
  if (c.stdout !== false) {
    const wantOut = normalizeAnswer(c.out, c.args, c.similar);
    const gotOut = normalizeAnswer(r.out, c.args, c.similar);
    if (gotOut !== wantOut) parts.push(firstDiff('stdout', wantOut, gotOut));
  }
  return parts.join('\n');
}
