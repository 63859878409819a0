/**
 * Tab completion for the REPL (a readline completer): commands at the start of a line;
 * probe points after `probe ` / `probes ` (families from the probe registry, tapset and
 * session aliases); kernel function names inside `kernel.function("` / `kprobe.function("` /
 * `module("M").function("` (kallsyms); tracepoints inside `kernel.trace("`; `kernel` views;
 * file names after `load`/`save`; otherwise session globals and functions, tapset functions
 * and keywords.
 */
import * as fs from 'fs';
import * as path from 'path';
import { dumpProbeTypes, dumpProbeAliases } from '../elaborate';
import { symbolCount, symbolName, isFunction } from '../kernel/kallsyms';
import { tracepointNames } from '../kernel/tracepoint';
import type { ReplSession } from './session';

export const COMMANDS = ['help', 'list', 'add', 'delete', 'load', 'save', 'run', 'sh', 'reset', 'globals', 'probes', 'kernel', 'seed',
  'set', 'show', 'sample', 'edit', 'quit'];
export const KERNEL_VIEWS = ['ftrace_ops', 'kprobes', 'tracepoints', 'tasks'];
const KEYWORDS = ['global', 'function', 'probe', 'private', 'if', 'else', 'for', 'foreach', 'while', 'in', 'delete', 'return',
  'next', 'break', 'continue', 'try', 'catch', 'limit'];
/** Most candidates shown for one TAB. */
const MAX = 200;

let kfuncs: string[] | null = null;
/** Kernel function names (text symbols), sorted, unique. */
function kernelFunctions(): string[] {
  if (kfuncs) return kfuncs;
  const set = new Set<string>();
  const n = symbolCount();
  for (let i = 0; i < n; i++) if (isFunction(i)) set.add(symbolName(i));
  kfuncs = [...set].sort();
  return kfuncs;
}

let tps: string[] | null = null;
function tracepoints(): string[] {
  if (!tps) tps = [...tracepointNames()].sort();
  return tps;
}

/** Sorted-array prefix search. */
function withPrefix(sorted: readonly string[], prefix: string): string[] {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < prefix) lo = mid + 1; else hi = mid;
  }
  const out: string[] = [];
  for (let i = lo; i < sorted.length && sorted[i].startsWith(prefix); i++) out.push(sorted[i]);
  return out;
}

export class Completer {
  private probeNames: string[] | null = null;
  private libFunctions: string[] | null = null;

  constructor(private session: ReplSession) {}

  /** Probe point spellings: `timer.s(`, `kernel.function("`, `begin`, aliases ... */
  private points(): string[] {
    if (!this.probeNames) {
      const set = new Set<string>();
      for (const line of dumpProbeTypes().split('\n')) {
        if (!line) continue;
        // complete up to the first argument
        const m = /^([^()]*)\((string|number)\)/.exec(line);
        if (m) set.add(m[1] + (m[2] === 'string' ? '("' : '('));
        else set.add(line);
      }
      for (const line of dumpProbeAliases(this.session.compiler.library, []).split('\n')) {
        const name = line.split(' = ')[0].trim();
        if (name) set.add(name);
      }
      this.probeNames = [...set].sort();
    }
    const own = this.session.items.filter((i) => i.kind === 'alias').map((i) => i.key.slice('alias:'.length).split('=')[0]);
    return [...new Set([...this.probeNames, ...own])].sort();
  }

  private identifiers(): string[] {
    if (!this.libFunctions) this.libFunctions = this.session.compiler.library.functionNames().filter((n) => !n.startsWith('_'));
    return [...new Set([...this.session.globalNames(), ...this.session.functionNames(), ...this.libFunctions, ...KEYWORDS])].sort();
  }

  /** readline completer: [candidates, the text they replace]. */
  complete(line: string): [string[], string] {
    const capped = (xs: string[], word: string): [string[], string] => [xs.slice(0, MAX), word];

    // inside a string argument of a probe point
    let m = /(kernel\.function|kprobe\.function|module\("[^"]*"\)\.function|kprobe\.module\("[^"]*"\)\.function)\("([^"]*)$/.exec(line);
    if (m) return closeArg(capped(withPrefix(kernelFunctions(), m[2]), m[2]));
    m = /kernel\.trace\("([^"]*)$/.exec(line);
    if (m) return closeArg(capped(withPrefix(tracepoints(), m[1]), m[1]));

    // first word: commands (and declaration keywords)
    m = /^\s*([A-Za-z_?]*)$/.exec(line);
    if (m) {
      const w = m[1];
      const all = [...COMMANDS, 'global', 'function', 'probe', ...this.session.globalNames(), ...this.session.functionNames()];
      return [[...new Set(all.filter((c) => c.startsWith(w)))].sort(), w];
    }
    m = /^\s*kernel\s+(\w*)$/.exec(line);
    if (m) return [KERNEL_VIEWS.filter((v) => v.startsWith(m![1])), m[1]];
    m = /^\s*(load|save)\s+(\S*)$/.exec(line);
    if (m) return [files(m[2]), m[2]];

    // probe points: after `probe`, `probes [-L]`, or a comma in a probe's point list
    m = /(?:^\s*probes\s+(?:-[lL]\s+)?|\bprobe\s+(?:[^{]*,\s*)?)([\w.*"()]*)$/.exec(line);
    if (m) {
      const w = m[1];
      return capped(this.points().filter((p) => p.startsWith(w)), w);
    }

    // identifiers
    m = /([A-Za-z_][A-Za-z0-9_]*)$/.exec(line);
    if (m) return capped(this.identifiers().filter((n) => n.startsWith(m![1])), m[1]);
    return [[], ''];
  }
}

/** A single candidate inside `("...`: close the argument too. */
function closeArg(r: [string[], string]): [string[], string] {
  return r[0].length === 1 ? [[r[0][0] + '")'], r[1]] : r;
}

function files(prefix: string): string[] {
  const dir = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/') + 1) : '';
  const base = prefix.slice(dir.length);
  try {
    return fs.readdirSync(dir === '' ? '.' : dir, { withFileTypes: true })
      .filter((d) => d.name.startsWith(base) && (base.startsWith('.') || !d.name.startsWith('.')))
      .map((d) => dir + d.name + (d.isDirectory() ? path.sep : ''))
      .sort();
  } catch {
    return [];
  }
}
