/**
 * Token rendering for runtime messages (`near identifier 'x' at FILE:L:C`).  Runtime errors
 * always print the full file name (unlike pass-1/2 diagnostics, which shorten repeats).
 */
import type { Token } from '../ast';
import { printable } from '../diag';

export function renderTokenFull(tok: Token): string {
  const where = `${tok.file.name}:${tok.line}:${tok.col}`;
  switch (tok.kind) {
    case 'keyword':
      return `keyword at ${where}`;
    case 'embedded':
      return `embedded-code at ${where}`;
    default:
      return `${tok.kind} '${printable(tok.text)}' at ${where}`;
  }
}

/** `file:line:col` of a token (for -t reports and -p3 comments). */
export function tokenWhere(tok: Token): string {
  return `${tok.file.name}:${tok.line}:${tok.col}`;
}
