/**
 * stap's `=~` / `!~` and the regex tapset functions (`matched(n)`, `matched_str()`,
 * `ngroups()`), in time linear in the text whatever the pattern: a pattern (always a string
 * literal in stap) is compiled once to an NFA (syntax.ts, nfa.ts); `=~` runs a lazily built DFA
 * (dfa.ts); the subexpressions are located, with POSIX's leftmost-longest rules, only when a
 * script asks for them (submatch.ts).
 */
import type { Long } from '../int64';
import { StapError } from '../errors';
import { parseRegex, regexErrorText, rawOfValue, RegexError } from './syntax';
import { Nfa, TooLarge } from './nfa';
import { Dfa } from './dfa';
import { Submatcher } from './submatch';

export { regexErrorText, rawOfValue };
export type { RegexError };

export interface CompiledEre {
  /** the pattern as written (raw literal text) */
  readonly source: string;
  /** subexpressions including the whole match */
  readonly ngroups: number;
  readonly nfa: Nfa;
  readonly dfa: Dfa;
  sub?: Submatcher;
}

const cache = new Map<string, CompiledEre | RegexError>();

/** Compile a pattern given as its raw literal text (what is between the quotes). */
export function compileEre(raw: string): CompiledEre | RegexError {
  let r = cache.get(raw);
  if (r) return r;
  const parsed = parseRegex(raw);
  if ('error' in parsed) r = parsed;
  else {
    try {
      const nfa = new Nfa(parsed.root);
      r = { source: raw, ngroups: parsed.ngroups, nfa, dfa: new Dfa(nfa) };
    } catch (e) {
      if (!(e instanceof TooLarge)) throw e;
      r = { error: 'regular expression too large' };
    }
  }
  if (cache.size > 1000) cache.clear();
  cache.set(raw, r);
  return r;
}

/** The pass-2 check of a pattern: stap's message, or null. */
export function regexCompileError(raw: string): string | null {
  const r = compileEre(raw);
  return 'error' in r ? regexErrorText(r) : null;
}

/** The last `=~` / `!~` of a probe context: what matched(), matched_str() and ngroups() see. */
export interface MatchState {
  ok: boolean;
  re: CompiledEre | null;
  /** the text matched against (up to its first NUL) */
  subject: string;
  /** group boundaries, computed on first use */
  spans: Int32Array | null;
}

export function newMatchState(): MatchState {
  return { ok: false, re: null, subject: '', spans: null };
}

/** `s =~ re`: 1 or 0, remembered in `state` for matched(). */
export function ereMatch(re: CompiledEre, s: string, state?: MatchState): number {
  const ok = re.dfa.test(s);
  if (state !== undefined) {
    state.ok = ok;
    state.re = re;
    state.subject = s;
    state.spans = null;
  }
  return ok ? 1 : 0;
}

function spans(state: MatchState): Int32Array {
  if (state.spans) return state.spans;
  const re = state.re!;
  let s = state.subject;
  const nul = s.indexOf('\0');
  if (nul >= 0) s = state.subject = s.slice(0, nul);
  re.sub ??= new Submatcher(re.nfa);
  const r = re.sub.run(s, re.ngroups);
  // the DFA said it matches: the submatcher finds the same match
  state.spans = r ?? new Int32Array(2 * re.ngroups).fill(-1);
  return state.spans;
}

/** matched(n): the text of subexpression n of the last successful match ("" if it took no part). */
export function matched(state: MatchState, n: Long): string {
  if (!state.ok) throw new StapError(`Attempted to get subexpression ${n} from failed match`);
  const ng = state.re ? state.re.ngroups : 0;
  if (n < 0 || n >= ng) throw new StapError(`Attempted to get nonexistent subexpression ${n}`);
  const sp = spans(state);
  const k = Number(n);
  const a = sp[2 * k];
  const b = sp[2 * k + 1];
  return a < 0 || b < 0 ? '' : state.subject.slice(a, b);
}

/** matched_str(): the whole match. */
export function matchedStr(state: MatchState): string {
  return matched(state, 0);
}

/** ngroups(): the subexpressions of the pattern, the whole match included. */
export function ngroups(state: MatchState): number {
  if (!state.ok) throw new StapError('Attempted to get subexpression count from failed match');
  return state.re ? state.re.ngroups : 0;
}
