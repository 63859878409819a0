/**
 * Making the build's alias table (alias_table.ts): every stdlib alias whose points are all
 * provider points is expanded the slow way, as pass 2 expands an optional use of it, and those
 * that derive no probe and print nothing are recorded.  scripts/alias-table.ts writes the table
 * at build time; test/elaborate/alias_table.test.ts checks it against this slow path.
 */
import * as path from 'path';
import type * as A from '../ast';
import { Diagnostics, SemanticError } from '../diag';
import { Session } from './session';
import { Deriver, Expansion } from './aliases';
import { defaultRegistry, hasWildcard } from './probes';
import type { TapsetLibrary } from './tapsets';
import { ALIAS_TABLE_VERSION, AliasTableData, kernelDataStamps } from './alias_table';
import { makeExpansions } from './alias_expansions_make';

/** A session over the whole library, with a deriver that never skips (the slow path). */
export interface SlowPath {
  session: Session;
  deriver: Deriver;
  diag: Diagnostics;
  /** The library's files, each with its decoded AST (null: failed to parse). */
  files: Map<string, A.StapFile | null>;
  /** The first components of the points derived since last cleared. */
  reached: Set<string>;
}

export function slowPath(lib: TapsetLibrary): SlowPath {
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: false }, () => {});
  const session = new Session({ guru: false, library: lib, registry: defaultRegistry() }, diag);
  const reached = new Set<string>();
  const deriver = new Deriver(session.tree, diag, {
    ensureAliases: (r) => {
      reached.add(r);
      session.ensureAliases(r);
    },
    guru: false, suggestionRoots: [],
  });
  const files = new Map<string, A.StapFile | null>();
  for (const f of lib.allFiles()) files.set(f, session.includePath(f));
  return { session, deriver, diag, files, reached };
}

/**
 * The slow path's verdict on one alias: does expanding it optionally derive no probe and print
 * nothing (no message, no warning, no error counted)?  Then the roots of the points it tried
 * (what decides that: no alias may be added under them), else null.  An alias whose outcome
 * could depend on the session (a wildcard root, a `process` point: -c/-x) is never one.
 */
export function expandsToNothing(sp: SlowPath, decl: A.AliasDecl): Set<string> | null {
  const before = sp.diag.activity;
  const out: Expansion[] = [];
  sp.reached.clear();
  try {
    sp.deriver.expandOptionally({ decl, nameIndex: 0 }, out);
  } catch (e) {
    if (e instanceof SemanticError) return null;
    throw e;
  }
  if (out.length !== 0 || sp.diag.activity !== before) return null;
  const roots = new Set(sp.reached);
  if ([...roots].some((r) => hasWildcard(r) || r === 'process')) return null;
  return roots;
}

/**
 * The table for the library's first directory (stdlib): every alias that expands to nothing,
 * and (written to `expansionsDir`: alias_expansions_make.ts) what every alias derives.
 */
export function makeAliasTable(lib: TapsetLibrary, expansionsDir?: string): AliasTableData {
  const sp = slowPath(lib);
  const stdlib = path.resolve(lib.dirs[0]);
  const table: AliasTableData = {
    version: ALIAS_TABLE_VERSION, base: lib.key, kernel: kernelDataStamps(), files: {}, roots: {}, stamps: {}, layout: {}, parsed: [],
  };
  const silent = new WeakSet<A.AliasDecl>();
  const roots = new Set<string>();
  for (const [f, ast] of sp.files) {
    const rel = path.relative(stdlib, f);
    const stamp = lib.fileStamp(f);
    if (!ast || rel.startsWith('..') || stamp === undefined) continue;
    const fails: number[] = [];
    ast.aliases.forEach((decl, i) => {
      const reached = expandsToNothing(sp, decl);
      if (!reached) return;
      fails.push(i);
      silent.add(decl);
      for (const r of reached) roots.add(r);
    });
    if (fails.length) table.files[rel] = { stamp, fails };
  }
  for (const r of [...roots].sort()) table.roots[r] = lib.filesDefiningAliasRoot(r).map((f) => path.relative(stdlib, f));
  if (expansionsDir) makeExpansions(sp, stdlib, table, (f) => lib.fileStamp(f), (d) => silent.has(d), expansionsDir);
  return table;
}
