/**
 * The stap abstract syntax tree: what pass 1 (src/parse) produces, what pass 2 (src/elaborate)
 * resolves and types in place, and what pass 3 (src/translate) turns into JavaScript.
 *
 * Every node carries `tok`, the token SystemTap would name in a diagnostic about it
 * (the operator for a binary expression, the identifier for a symbol, the keyword for a
 * statement); tokens carry file, line and column.
 *
 * Fields marked "pass 2" are empty after parsing and filled in by elaboration.
 */

// ---------------------------------------------------------------------------------------------
// Source and tokens

export interface SourceFile {
  /** Name as diagnostics print it: a path, `<input>` for -e, `<input1>`.. for -E. */
  name: string;
  /** The text, one char per byte (latin1). */
  text: string;
  /** True for files found on the tapset path (stdlib/ or -I). */
  isTapset: boolean;
  /** Lazily split lines, for `source:` lines in diagnostics. */
  lines?: string[];
}

export type TokenKind = 'identifier' | 'operator' | 'string' | 'number' | 'junk' | 'keyword' | 'embedded';

export interface Token {
  kind: TokenKind;
  /** Raw text (for strings: the contents without quotes, escapes still raw, as stap keeps them). */
  text: string;
  file: SourceFile;
  /** 1-based line and byte column. */
  line: number;
  col: number;
  /** Set on tokens produced by macro expansion or $N/@N pasting: the invocation token. */
  chain?: Token;
  /**
   * Set on tokens a macro expansion produced: the `@name` that expanded them (a parameter's
   * tokens: the `@param` in the body, whose own `expansion` is the invocation).  Diagnostics
   * print the chain as stap does (`in expansion of macro: ...`); $N pasting has none.
   */
  expansion?: Token;
}

// ---------------------------------------------------------------------------------------------
// Types (pass 2)

export type Type = 'unknown' | 'long' | 'string' | 'stats';

/** A 64-bit signed integer in canonical form (see src/runtime/int64.ts). */
export type Long = number | bigint;

// ---------------------------------------------------------------------------------------------
// Expressions

interface ExprBase {
  tok: Token;
  /** pass 2 */
  type?: Type;
}

export interface NumberLit extends ExprBase { k: 'num'; value: Long; }
export interface StringLit extends ExprBase {
  k: 'str';
  /** interpreted bytes (escapes resolved) */
  value: string;
  /** source text between the quotes, escapes unresolved (for -p1) */
  raw?: string;
}

export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '<<' | '>>' | '>>>';
export type CompareOp = '<' | '>' | '<=' | '>=' | '==' | '!=';
export type AssignOp = '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '<<=' | '>>=' | '&=' | '^=' | '|=' | '.=' | '<<<';

/**
 * `chain`: set on the nodes of a long run of one associative operator (`a . b . c ...`), which
 * the parser builds balanced; nodes with the same id are one left-associated chain to printers.
 */
export interface Binary extends ExprBase { k: 'binary'; op: BinaryOp; left: Expr; right: Expr; chain?: number; }
export interface Logical extends ExprBase { k: 'logical'; op: '&&' | '||'; left: Expr; right: Expr; chain?: number; }
export interface Compare extends ExprBase { k: 'compare'; op: CompareOp; left: Expr; right: Expr; }
export interface Concat extends ExprBase { k: 'concat'; left: Expr; right: Expr; chain?: number; }
export interface Regex extends ExprBase { k: 'regex'; op: '=~' | '!~'; left: Expr; right: StringLit; }
export interface Unary extends ExprBase { k: 'unary'; op: '-' | '+' | '!' | '~'; operand: Expr; }
export interface IncDec extends ExprBase { k: 'incdec'; op: '++' | '--'; prefix: boolean; operand: Expr; }
export interface Ternary extends ExprBase { k: 'ternary'; cond: Expr; then: Expr; else: Expr; }
export interface Assign extends ExprBase { k: 'assign'; op: AssignOp; target: Expr; value: Expr; }

/** A plain name: local, parameter or global (scalar, or array when used under `index`). */
export interface Sym extends ExprBase {
  k: 'sym';
  name: string;
  /** pass 2 */
  ref?: VarDecl;
}

/** `a[i, j]`; a null index is the `*` wildcard (only legal in `in`, `delete` and foreach slices). */
export interface Index extends ExprBase {
  k: 'index';
  base: Sym | Hist;
  indexes: (Expr | null)[];
}

export interface Call extends ExprBase {
  k: 'call';
  name: string;
  args: Expr[];
  /** pass 2: the function (first of a `next` overload chain). */
  ref?: FunctionDecl;
}

export type PrintName =
  | 'print' | 'println' | 'sprint' | 'sprintln' | 'printd' | 'printdln' | 'sprintd' | 'sprintdln' | 'printf' | 'sprintf';

export interface Print extends ExprBase {
  k: 'print';
  name: PrintName;
  /** printf/sprintf format literal (interpreted bytes). */
  format?: string;
  /** printd* delimiter literal. */
  delim?: string;
  /** The format/delimiter as written (escapes unresolved), for -p1. */
  formatRaw?: string;
  args: Expr[];
  /** The `print(@hist_*(x))` form. */
  hist?: Hist;
}

export type StatOpName = 'count' | 'sum' | 'min' | 'max' | 'avg' | 'variance';
export interface StatOp extends ExprBase { k: 'statop'; op: StatOpName; operand: Expr; shift?: number; }

export interface Hist extends ExprBase {
  k: 'hist';
  kind: 'log' | 'linear';
  operand: Expr;
  /** linear: [low, high, width] */
  params: Long[];
}

export interface In extends ExprBase { k: 'in'; keys: (Expr | null)[]; array: Sym; }

/** Member/index components after a target expression: `->f`, `[expr]`. */
export type TargetComponent = { k: 'member'; name: string; tok: Token } | { k: 'index'; index: Expr; tok: Token };

/** `$var...`, `$$vars`, `$var$`, `&$var->f`. */
export interface Target extends ExprBase {
  k: 'target';
  name: string;            // including the leading `$` (e.g. `$count`, `$$parms`)
  components: TargetComponent[];
  /** 0 = plain, 1 = `$` suffix (shallow pretty), 2 = `$$` suffix (deep pretty). */
  pretty: 0 | 1 | 2;
  addressOf: boolean;
}

/** `@cast(ptr, "type"[, "module"])->...` */
export interface Cast extends ExprBase {
  k: 'cast';
  operand: Expr;
  typeName: string;
  module?: string;
  components: TargetComponent[];
  pretty: 0 | 1 | 2;
  addressOf: boolean;
}

/** `@var("name[@file]"[, "module"])->...` */
export interface AtVar extends ExprBase {
  k: 'atvar';
  varName: string;
  module?: string;
  components: TargetComponent[];
  pretty: 0 | 1 | 2;
  addressOf: boolean;
}

/** `->`/`[]` applied to an arbitrary expression (autocast). */
export interface Autocast extends ExprBase {
  k: 'autocast';
  operand: Expr;
  components: TargetComponent[];
  /** `&x->f` */
  addressOf?: boolean;
  /**
   * Set by pass 2 once the operand's DWARF type is known: the BTF id of the type the operand
   * points to (`x->f` is then `@cast(x, T)->f`).
   */
  operandType?: number;
}

export interface Entry extends ExprBase { k: 'entry'; operand: Expr; }
export interface Defined extends ExprBase { k: 'defined'; operand: Expr; }

/** Other `@op(args)` forms: @kderef, @uderef, @kregister, @uregister, @perf, @probewrite, @const, @enum. */
export interface AtOp extends ExprBase { k: 'atop'; name: string; args: Expr[]; }

/** `%{ C %}` in expression position (guru only; never executed). */
export interface EmbeddedExpr extends ExprBase { k: 'embedded'; code: string; }

export type Expr =
  | NumberLit | StringLit | Binary | Logical | Compare | Concat | Regex | Unary | IncDec | Ternary | Assign
  | Sym | Index | Call | Print | StatOp | Hist | In | Target | Cast | AtVar | Autocast | Entry | Defined | AtOp
  | EmbeddedExpr;

// ---------------------------------------------------------------------------------------------
// Statements

interface StmtBase { tok: Token; }

export interface Block extends StmtBase { k: 'block'; stmts: Stmt[]; }
/** `first`: the statement's first token (a `(` before the expression's own), stap's expr_statement token */
export interface ExprStmt extends StmtBase { k: 'expr'; expr: Expr; first?: Token; }
export interface If extends StmtBase { k: 'if'; cond: Expr; then: Stmt; else?: Stmt; }
export interface While extends StmtBase { k: 'while'; cond: Expr; body: Stmt; }
export interface For extends StmtBase { k: 'for'; init?: Expr; cond?: Expr; incr?: Expr; body: Stmt; }

export interface Foreach extends StmtBase {
  k: 'foreach';
  /** Key variables (one per index column). */
  keys: Sym[];
  /** `v = [k1, k2] in a`: the value variable. */
  value?: Sym;
  /** The iterated array, or a histogram (`@hist_log(s)`) whose bucket indices are iterated. */
  array: Sym | Hist;
  /** `foreach (k in a[*, 5])`: fixed positions (null = `*`). */
  slice?: (Expr | null)[];
  /** 0 = by value, 1..N = by key column N; undefined = unsorted (insertion order). */
  sortColumn?: number;
  /** 1 ascending (`+`), -1 descending (`-`). */
  sortDirection?: 1 | -1;
  /** `foreach (k in s @sum-)` */
  sortAggregate?: StatOpName;
  limit?: Expr;
  body: Stmt;
}

export interface Return extends StmtBase { k: 'return'; value?: Expr; }
export interface Next extends StmtBase { k: 'next'; }
export interface Break extends StmtBase { k: 'break'; }
export interface Continue extends StmtBase { k: 'continue'; }
export interface Delete extends StmtBase { k: 'delete'; target: Expr; }
export interface Try extends StmtBase { k: 'try'; body: Block; catchVar?: Sym; handler: Block; }
export interface Null extends StmtBase { k: 'null'; }

export type Stmt = Block | ExprStmt | If | While | For | Foreach | Return | Next | Break | Continue | Delete | Try | Null;

// ---------------------------------------------------------------------------------------------
// Declarations

/** A global, local or function parameter. Pass 2 links every Sym to one of these. */
export interface VarDecl {
  name: string;
  tok: Token;
  kind: 'global' | 'local' | 'param';
  /** `global a%` */
  wrap?: boolean;
  /** `global a[N]` */
  maxSize?: number;
  /** `global x = literal` */
  init?: NumberLit | StringLit;
  /** the `=` of an initialised global (where its arity 0 is first inferred) */
  initTok?: Token;
  /** Declared `private` (file-scoped). */
  isPrivate?: boolean;
  /** Parameter annotation `x:long`. */
  declaredType?: Type;
  /** pass 2: value type, and for arrays the index types (length = arity). */
  type?: Type;
  indexTypes?: Type[];
  /** pass 2: -1 unknown, 0 scalar, N array with N index columns. */
  arity?: number;
  /** pass 2: the file that declared it. */
  file?: SourceFile;
  /**
   * pass 2: written / read anywhere, as stap's varuse counts them for the end-of-run display of
   * globals written but never read (a discarded `n++;` or `n += x;` is a write only).
   */
  written?: boolean;
  read?: boolean;
  /** pass 2: histogram and variance uses of a stats global (the runtime sizes its aggregates from these). */
  histograms?: { kind: 'log' | 'linear'; params: Long[] }[];
  varianceShift?: number;
  /** Synthetic globals made by the translator (not auto-printed). */
  synthetic?: boolean;
}

export interface Param { name: string; tok: Token; declaredType?: Type; }

export interface FunctionDecl {
  name: string;
  tok: Token;
  returnType?: Type;     // annotation `function f:long`
  params: Param[];
  priority: number;      // `: N` (user default 0, tapset default 1)
  body: Block | { k: 'embedded'; code: string; tok: Token };
  isPrivate?: boolean;
  file: SourceFile;
  /** pass 2 */
  type?: Type;
  paramDecls?: VarDecl[];
  locals?: VarDecl[];
  /** pass 2: next overload in a same-arity `next` chain (priority order, then declaration order). */
  nextOverload?: FunctionDecl;
  /** Implemented by the runtime in TypeScript rather than in stap (see src/elaborate/builtins). */
  builtin?: string;
  /** pragmas from an embedded-C body: `unprivileged`, `pure`, `guru`, `string`, ... */
  pragmas?: string[];
}

export interface ProbePointComponent {
  name: string;          // may contain `*` wildcards
  arg?: NumberLit | StringLit;
  tok: Token;
}

export interface ProbePoint {
  components: ProbePointComponent[];
  optional: boolean;     // `?`
  sufficient: boolean;   // `!`
  condition?: Expr;      // `if (expr)`
  tok: Token;
}

export interface ProbeDecl {
  points: ProbePoint[];
  body: Block;
  tok: Token;            // the `probe` keyword
  file: SourceFile;
  isPrivate?: boolean;
}

export interface AliasDecl {
  /** Names (`probe a = b = X` gives two). */
  names: ProbePoint[];
  points: ProbePoint[];
  prologue?: Block;
  epilogue?: Block;
  tok: Token;
  file: SourceFile;
}

export interface EmbeddedCode { code: string; tok: Token; }

export interface StapFile {
  file: SourceFile;
  globals: VarDecl[];
  functions: FunctionDecl[];
  probes: ProbeDecl[];
  aliases: AliasDecl[];
  embeds: EmbeddedCode[];
  /** `private` declarations make their names unique per file with this suffix. */
  privateSuffix?: string;
}

// ---------------------------------------------------------------------------------------------
// Pass 2 output: the program the translator consumes.

/** A probe point after alias expansion and family resolution: one registration. */
export interface ResolvedPoint {
  /** Family name as the provider calls it: 'begin', 'end', 'error', 'never', 'timer', 'kernel.function', ... */
  family: string;
  /** The low-level point string, as pp() returns it (e.g. `timer.s(1)`, `begin`). */
  pp: string;
  /** Family-specific data for the translator/runtime (sequence numbers, intervals, addresses...). */
  data: Record<string, unknown>;
}

export interface DerivedProbe {
  /** Index in Program.probes; stable, in script order. */
  index: number;
  point: ResolvedPoint;
  /** pn(): the script-level point (alias name or wildcard expansion). */
  pn: string;
  /** The derivation chain for the -p2 `<-` comment and -t `from:` (script-level point first). */
  chain: string[];
  /** `?` or `!` as written on the location that made this point (-p2 shows it after the point). */
  mark?: string;
  /** Body including alias prologue/epilogue. */
  body: Block;
  locals: VarDecl[];
  /** Combined `if (...)` arming condition over globals. */
  condition?: Expr;
  /** The `probe` keyword of the user's declaration. */
  tok: Token;
  /** The user's probe declaration this came from. */
  decl: ProbeDecl;
}

export interface Program {
  /** Only globals/functions that survive elaboration (used ones). */
  globals: VarDecl[];
  functions: FunctionDecl[];
  probes: DerivedProbe[];
  embeds: EmbeddedCode[];
  /** User files (not tapsets), for auto-printing and warnings. */
  userFiles: SourceFile[];
  /** Number of library (tapset) files parsed, for -v pass lines. */
  libraryFileCount: number;
}
