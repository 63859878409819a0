/**
 * Oracle tables: generated `stap` invocations whose exit status and messages real SystemTap 4.8
 * decides in passes 1-2 (`-p1`, `-p2`, `-l`).  A table is a generator of cases; record.ts runs
 * each case through the oracle (`/work/shared/tools/real-stap`) and writes what it printed to
 * test/oracle/<table>.json, which test/oracle/oracle.test.ts replays against tapsim without the
 * oracle.  compare.ts prints where tapsim differs.
 */

export interface OracleCase {
  /** unique within the table; stable across regenerations (used in test names and diffs) */
  id: string;
  /** stap's argv after the command (options, `-e SCRIPT` or a file name, script arguments) */
  args: string[];
  /** compare stdout too (default true); false where stdout lists tapset internals */
  stdout?: boolean;
  /** compare the names of `(similar: ...)` lists too (default false: they follow the tapset library's contents) */
  similar?: boolean;
}

export interface RecordedCase extends OracleCase {
  exit: number;
  out: string;
  err: string;
}

export interface RecordedTable {
  table: string;
  /** where the expectations come from */
  source: string;
  cases: RecordedCase[];
}

export interface Table {
  name: string;
  /** one line: what the table covers */
  about: string;
  cases(): OracleCase[];
  /**
   * Answers that come from the oracle's environment and are not recorded (default: record.ts's
   * ORACLE_ENVIRONMENT, which also drops every answer naming a kernel point)
   */
  environment?: RegExp;
}

/** `-p2 -e SCRIPT` style helpers. */
export function p1(id: string, script: string, ...opts: string[]): OracleCase {
  return { id, args: [...opts, '-p1', '-e', script] };
}
export function p2(id: string, script: string, ...opts: string[]): OracleCase {
  return { id, args: [...opts, '-p2', '-e', script] };
}
/** Each script at -p2 as `PREFIX:i`, and again with option `opt` as `PREFIX:i:SUFFIX` (what the option changes, case by case) */
export function p2Pairs(prefix: string, scripts: readonly string[], suffix: string, opt: string): OracleCase[] {
  return scripts.flatMap((s, i) => [p2(`${prefix}:${i}`, s), p2(`${prefix}:${i}:${suffix}`, s, opt)]);
}

/**
 * Lines of real stap's output that come from the oracle's environment, not from the script:
 * Debian's hint after a failure, and the symbol-table warning of a build tree without
 * System.map (record.ts gives the tree one, so -W runs are meaningful; this is a second guard).
 */
export function normalizeOracle(s: string): string {
  return s
    .split('\n')
    .filter((l) => !l.startsWith('Tip: /usr/share/doc/systemtap/README.Debian') &&
      l !== 'WARNING: Kernel function symbol table missing [man warning::symbols]')
    .join('\n');
}
