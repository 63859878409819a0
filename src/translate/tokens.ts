/**
 * Token rendering for runtime messages (`near identifier 'x' at FILE:L:C`).  Runtime errors
 * always print the full file name (unlike pass-1/2 diagnostics, which shorten repeats).
 */
import type { Token } from '../ast';
import { renderTokenText } from '../diag';

export function renderTokenFull(tok: Token): string {
  return renderTokenText(tok);
}

/** `file:line:col` of a token (for -t reports and -p3 comments). */
export function tokenWhere(tok: Token): string {
  return `${tok.file.name}:${tok.line}:${tok.col}`;
}
