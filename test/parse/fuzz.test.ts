/**
 * Fuzz: thousands of mutated scripts must only ever produce diagnostics, never a JavaScript
 * exception.  Mutations are seeded (deterministic): byte deletions, duplications, insertions of
 * stap tokens, and swaps, applied to the golden scripts.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';

const root = path.join(__dirname, '..', '..', '..');
const corpus = fs.readdirSync(path.join(root, 'test', 'golden', 'p1'))
  .filter((f) => f.endsWith('.stp'))
  .map((f) => fs.readFileSync(path.join(root, 'test', 'golden', 'p1', f), 'latin1'));

const SNIPPETS = ['{', '}', '(', ')', '[', ']', ',', ';', '"', '%(', '%?', '%:', '%)', '%{', '%}', '@define', '@1', '$1', '$#',
  'probe', 'global', 'function', 'foreach', 'in', 'limit', 'return', 'if', 'else', '<<<', '->', '$x', '@cast', '@hist_log',
  '@count', '?', '!', '*', '=', '+=', '.', '0x', '99999999999999999999', '\\', '\n', '#', '/*', '*/', '@', '$', 'try', 'catch'];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(text: string, r: () => number): string {
  let s = text;
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const pos = Math.floor(r() * (s.length + 1));
    const kind = Math.floor(r() * 4);
    if (kind === 0) s = s.slice(0, pos) + s.slice(pos + 1 + Math.floor(r() * 8));
    else if (kind === 1) s = s.slice(0, pos) + SNIPPETS[Math.floor(r() * SNIPPETS.length)] + s.slice(pos);
    else if (kind === 2) s = s.slice(0, pos) + s.slice(pos, pos + 10) + s.slice(pos);
    else {
      const q = Math.floor(r() * s.length);
      s = s.slice(0, Math.min(pos, q)) + s.slice(Math.max(pos, q)) + s.slice(Math.min(pos, q), Math.max(pos, q));
    }
  }
  return s;
}

describe('pass 1: fuzzing with mutated scripts', function () {
  this.timeout(120000);
  it('never throws, only reports diagnostics (1500 mutants)', () => {
    const r = rng(12345);
    let failed = 0;
    for (let i = 0; i < 1500; i++) {
      const text = mutate(corpus[i % corpus.length], r);
      let out = '';
      const diag = new Diagnostics({ verbose: 0, suppressWarnings: false }, (s) => { out += s; });
      let result;
      try {
        result = parseFile({ name: 'fuzz.stp', text, isTapset: false }, { args: ['a', 'b'], guru: i % 2 === 0 }, diag);
      } catch (e) {
        throw new Error(`mutant ${i} threw ${(e as Error).stack}\n--- script ---\n${text}`);
      }
      if (!result) {
        failed++;
        expect(out, `mutant ${i} failed without a diagnostic`).to.match(/parse error: /);
      }
    }
    expect(failed).to.be.greaterThan(500);
  });
});
