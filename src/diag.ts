/**
 * Diagnostics in SystemTap's exact layout (parse errors, semantic errors, warnings), with
 * token rendering (`identifier 'x' at file:L:C`), the `source:` line and caret, de-duplication
 * and the suppressed-message footers.  Every pass reports through one Diagnostics object.
 */
import type { Token, SourceFile } from './ast';

/** An error a pass raises about user input; `tok` is what the message names. */
export class SemanticError extends Error {
  /** `details`: lines printed under the first one (stap's `dieoffset: ...` of a DWARF error) */
  constructor(message: string, public tok?: Token, public chain: SemanticError[] = [], public site = '', public details: string[] = []) {
    super(message);
  }
}

export class ParseError extends Error {
  /** `saw`: the message is an "expected X" about `tok` (printed as `saw:`), else `at:`. */
  /** What makes two errors "similar" (one shown, the others counted); the message if unset. */
  similar?: string;
  constructor(message: string, public tok?: Token, public saw = false, public eof?: SourceFile) {
    super(message);
  }
}

/** Thrown by a pass to stop with exit status 1 after its diagnostics were printed. */
export class PassFailed extends Error {
  constructor(public pass: number) {
    super(`pass ${pass} failed`);
  }
}

export function sourceLine(file: SourceFile, line: number): string {
  if (!file.lines) file.lines = file.text.split('\n');
  return file.lines[line - 1] ?? '';
}

export interface DiagOptions {
  verbose: number;
  suppressWarnings: boolean;   // -w
  warningsAreErrors?: boolean; // -W
}

export class Diagnostics {
  /**
   * The file of the last token a semantic error or warning named: stap (session.cxx
   * print_token) drops the file name from a token of the same file as the previous one
   * (`at :2:1`); parse errors always name it and do not count.
   */
  private lastTokenFile: SourceFile | null = null;
  private seenErrorSites = new Set<string>();
  private seenParseErrors = new Set<string>();
  private seenWarnings = new Set<string>();
  suppressedErrors = 0;
  suppressedWarnings = 0;
  errorCount = 0;
  /**
   * The text of an error that ends stap at once, printed after the error instead of the
   * `Pass N: ... failed` line (stap's top-level catch: `unexpected @probewrite`).
   */
  fatal?: string;
  warningCount = 0;

  /** Everything this object has printed or counted (to tell whether an operation was silent). */
  get activity(): number {
    return this.written + this.errorCount + this.warningCount + this.suppressedErrors + this.suppressedWarnings;
  }
  private written = 0;
  private write: (s: string) => void;

  constructor(public opts: DiagOptions, write: (s: string) => void) {
    this.write = (s: string) => {
      this.written++;
      write(s);
    };
  }

  /**
   * `identifier 'x' at file:1:5`; `keyword at :2:1` after a token of the same file (stap
   * removes the first occurrence of the file name from the rendered token).
   */
  renderToken(tok: Token): string {
    let s = renderTokenText(tok);
    if (this.lastTokenFile === tok.file && tok.file.name) {
      const i = s.indexOf(tok.file.name);
      if (i >= 0) s = s.slice(0, i) + s.slice(i + tok.file.name.length);
    }
    this.lastTokenFile = tok.file;
    return s;
  }

  /** The macro expansions a token came from, innermost first, each with its source line (stap's token chain). */
  private expansions(tok: Token, align: number): string {
    let out = '';
    for (let c = tok.expansion; c; c = c.expansion) out += `\tin expansion of macro: ${renderTokenText(c)}\n` + this.sourceBlock(c, align);
    return out;
  }

  private sourceBlock(tok: Token, align: number): string {
    const line = sourceLine(tok.file, tok.line);
    let caret = '';
    for (let i = 0; i < tok.col - 1 && i < line.length; i++) caret += isSpace(line[i]) ? line[i] : ' ';
    for (let i = line.length; i < tok.col - 1; i++) caret += ' ';
    const pad = ' '.repeat(align);
    return `${pad}source: ${line}\n${pad}        ${caret}^\n`;
  }

  /**
   * A parse error.  Without -v, one whose message was printed before is counted (`N parse
   * errors.`) but not shown (`Number of similar error messages suppressed`).
   */
  parseError(e: ParseError): void {
    this.errorCount++;
    if (this.opts.verbose < 1) {
      const key = e.similar ?? e.message;
      if (this.seenParseErrors.has(key)) {
        this.suppressedErrors++;
        return;
      }
      this.seenParseErrors.add(key);
    }
    let out = `parse error: ${e.message}\n`;
    if (e.tok) {
      out += `${e.saw ? '        saw:' : '         at:'} ${renderTokenText(e.tok)}\n`;
      out += this.sourceBlock(e.tok, 5) + this.expansions(e.tok, 5);
    } else if (e.eof) {
      out += `        saw: ${e.eof.name} EOF\n`;
    }
    out += '\n';
    this.write(out);
  }

  /** Print a semantic error with its chain; returns false if it was de-duplicated away. */
  semanticError(e: SemanticError): boolean {
    this.recording?.push(() => this.semanticErrorOnce(e));
    return this.semanticErrorOnce(e);
  }

  private semanticErrorOnce(e: SemanticError): boolean {
    const site = e.site || e.message;
    if (this.opts.verbose < 1 && site && this.seenErrorSites.has(site)) {
      this.suppressedErrors++;
      return false;
    }
    this.seenErrorSites.add(site);
    this.errorCount++;
    this.write(this.renderSemantic(e));
    return true;
  }

  private renderSemantic(e: SemanticError): string {
    let out = `semantic error: ${e.message}`;
    const details = e.details.map((d) => `        ${d}\n`).join('');
    if (e.tok) out += `: ${this.renderToken(e.tok)}\n` + details + this.sourceBlock(e.tok, 8) + this.expansions(e.tok, 8);
    else out += '\n' + details;
    // a chained error without a message is stap's second token of the same error (tok2: the
    // left side of a bad assignment, the declaration of a mis-called function), in its block
    const second = e.chain.filter((c) => !c.message && c.tok);
    for (const c of second) out += `${this.renderToken(c.tok!)}\n` + this.sourceBlock(c.tok!, 8);
    out += '\n';
    for (const c of e.chain) {
      if (second.includes(c)) continue;
      // stap prints a chained error of a kind (its errsrc) once: a later `inconsistent arity` or
      // `type mismatch` comes without its `first inferred here`, under -v too (real-stap -v)
      if (c.site) {
        if (this.chainSites.has(c.site)) continue;
        this.chainSites.add(c.site);
      }
      out += this.renderSemantic(c);
    }
    return out;
  }

  /** Sites of the chained errors printed so far. */
  private chainSites = new Set<string>();

  /** The messages of the body being checked for several probes (see asCopies), to say again. */
  private recording: (() => void)[] | null = null;

  /**
   * Run `f`, which checks one body that stands for `copies` probes: pass 2 elaborates one body
   * for all the points of a wildcard (src/elaborate/aliases.ts), and what it reports is reported
   * for every one of those probes, in the same order as if each probe's body were checked on its
   * own (shown once and the others counted as similar messages suppressed, or all shown under -v).
   * `then(i)` reports what is particular to the i-th probe, after its share of the messages.
   */
  asCopies<T>(copies: number, f: () => T, then?: (i: number) => void): T {
    if (copies <= 1 || this.recording) {
      const r = f();
      if (then) for (let i = 0; i < copies; i++) then(i);
      return r;
    }
    const said: (() => void)[] = [];
    this.recording = said;
    let r: T;
    try {
      r = f();
    } finally {
      this.recording = null;
    }
    then?.(0);
    for (let i = 1; i < copies; i++) {
      for (const again of said) again();
      then?.(i);
    }
    return r;
  }

  /** A warning; `counted` false: not one that -W turns into a failure (counts suppressions only). */
  warning(message: string, tok?: Token, counted = true): void {
    this.recording?.push(() => this.warningOnce(message, tok, counted));
    this.warningOnce(message, tok, counted);
  }

  private warningOnce(message: string, tok: Token | undefined, counted: boolean): void {
    if (this.opts.suppressWarnings) return;
    let text = `WARNING: ${message}`;
    // stap de-duplicates on the message alone: the same warning at another place is suppressed
    const key = text;
    if (this.opts.verbose < 1 && this.seenWarnings.has(key)) {
      this.suppressedWarnings++;
      return;
    }
    if (tok) text += `: ${this.renderToken(tok)}\n` + this.sourceBlock(tok, 1).replace(/\n$/, '') + '\n' + this.expansions(tok, 1);
    else text += '\n';
    this.seenWarnings.add(key);
    if (counted) this.warningCount++;
    this.write(text);
  }

  /** A message printed as is (e.g. `Input file 'x' is empty.`): a failure without an error count. */
  plain(text: string): void {
    this.failures++;
    this.write(text);
  }

  /** Failures reported through plain(). */
  failures = 0;
  /** An exception ended stap's run (`bad lexical cast`): its text alone, no pass footer after it. */
  aborted = false;

  /** The `Number of similar ... suppressed` footers stap prints before exiting. */
  footer(): void {
    let any = false;
    if (this.suppressedErrors) {
      this.write(`Number of similar error messages suppressed: ${this.suppressedErrors}.\n`);
      any = true;
    }
    if (this.suppressedWarnings) {
      this.write(`Number of similar warning messages suppressed: ${this.suppressedWarnings}.\n`);
      any = true;
    }
    if (any) this.write('Rerun with -v to see them.\n');
  }
}

/** `identifier 'x' at file:1:5` with the file name. */
export function renderTokenText(tok: Token): string {
  let what: string;
  if (tok.kind === 'keyword') what = 'keyword';
  else if (tok.kind === 'embedded') what = 'embedded-code';
  else what = `${tok.kind} '${printable(tok.text)}'`;
  return `${what} at ${tok.file.name}:${tok.line}:${tok.col}`;
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\v' || c === '\f' || c === '\r';
}

export function printable(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= 32 && c < 127 ? s[i] : c === 9 || c === 10 ? s[i] : '?';
  }
  return out;
}
