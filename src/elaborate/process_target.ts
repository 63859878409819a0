/**
 * An unspecified `process` probe point (`process.function("f")`, `process.begin`) means the
 * program of `-c COMMAND` or the process of `-x PID`.  stap checks that one is given, and
 * word-expands the command to find the program, before anything else about the point:
 * those errors are stap's whatever the simulated system can probe.
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import { defaultEnvironment } from '../machine/userland/environment';
import { wordexp, WORDEXP_MESSAGES } from './wordexp';

/** What `-c` / `-x` gave the session. */
export interface TargetSpec {
  command?: string;
  pid?: number;
}

/**
 * The points of every process (utrace-style: `process.begin`, `.end`, `.syscall`, `.thread.*`)
 * need no target (real-stap -p2 goes on to the provider for them).
 */
const SYSTEM_WIDE = new Set(['begin', 'end', 'syscall', 'thread']);

/** Throws stap's error for an unspecified process point without a usable target; else returns. */
export function checkUnspecifiedProcess(first: A.ProbePointComponent, target: TargetSpec, second?: A.ProbePointComponent): void {
  if (first.name !== 'process' || first.arg) return;
  if (second && SYSTEM_WIDE.has(second.name)) return;
  if (target.pid !== undefined) return;
  if (target.command === undefined) {
    throw new SemanticError('unspecified process probe is invalid without a -c COMMAND or -x PID [man stapprobes]', undefined, [], 'process-unspecified');
  }
  const r = wordexp(target.command, defaultEnvironment());
  if (!r.ok) {
    throw new SemanticError('invalid -c command for unspecified process probe [man stapprobes]', undefined,
      [new SemanticError(WORDEXP_MESSAGES[r.error], undefined, [], 'process-wordexp')], 'process-bad-command');
  }
}
