/**
 * The tracing "regex" of Linux 6.1: filter_parse_regex() (kernel/trace/trace_events_filter.c)
 * and the glob it falls back to (lib/glob.c glob_match()). Used by set_ftrace_filter and
 * friends (ftrace_match()), set_event and the event filter `~` operator.
 *
 *   "name"   exact (MATCH_FULL)          "name*"  prefix (MATCH_FRONT_ONLY)
 *   "*name"  suffix (MATCH_END_ONLY)     "*name*" substring (MATCH_MIDDLE_ONLY)
 *   a `*` inside, `?`, `[...]` or `\` : glob_match (MATCH_GLOB)
 *   a leading digit: MATCH_INDEX (the Nth line of available_filter_functions)
 *   a leading `!`: `not` (remove the matches)
 */
export const MATCH_FULL = 0, MATCH_FRONT_ONLY = 1, MATCH_MIDDLE_ONLY = 2, MATCH_END_ONLY = 3, MATCH_GLOB = 4, MATCH_INDEX = 5;

export interface ParsedRegex {
  type: number;
  search: string;
  not: boolean;
}

/** filter_parse_regex() */
export function filterParseRegex(buf: string): ParsedRegex {
  let not = false;
  if (buf[0] === '!') { not = true; buf = buf.slice(1); }
  if (/^[0-9]/.test(buf)) return { type: MATCH_INDEX, search: buf, not };
  let type = MATCH_FULL;
  let search = buf;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c === '*') {
      if (i === 0) type = MATCH_END_ONLY;
      else if (i === buf.length - 1) {
        type = type === MATCH_END_ONLY ? MATCH_MIDDLE_ONLY : MATCH_FRONT_ONLY;
        search = buf.slice(0, i);
        break;
      } else return { type: MATCH_GLOB, search: buf, not };
    } else if (c === '[' || c === '?' || c === '\\') return { type: MATCH_GLOB, search: buf, not };
  }
  if (search[0] === '*') search = search.slice(1);
  return { type, search, not };
}

/** glob_match() of lib/glob.c: `*`, `?`, `[...]` with `!` or `^` negation and ranges, `\` escapes. */
export function globMatch(pat: string, str: string): boolean {
  let p = 0, s = 0;
  let backP = -1, backS = -1;
  for (;;) {
    const c = s < str.length ? str[s] : '';
    const d = p < pat.length ? pat[p] : '';
    let matched = false;
    if (d === '?' && c !== '') { s++; p++; matched = true; }
    else if (d === '*') {
      if (p + 1 === pat.length) return true;
      backP = ++p;
      backS = s;
      continue;
    } else if (d === '[' && c !== '') {
      let q = p + 1;
      let inverted = false;
      if (pat[q] === '!' || pat[q] === '^') { inverted = true; q++; }
      let hit = false;
      let first = true;
      let closed = false;
      while (q < pat.length) {
        let a = pat[q];
        if (a === ']' && !first) { closed = true; q++; break; }
        first = false;
        let b = a;
        if (pat[q + 1] === '-' && q + 2 < pat.length && pat[q + 2] !== ']') { b = pat[q + 2]; q += 3; } else q++;
        if (a > b) { const t = a; a = b; b = t; }
        if (c >= a && c <= b) hit = true;
      }
      if (closed && hit !== inverted) { s++; p = q; matched = true; }
    } else {
      let lit = d;
      let q = p;
      if (d === '\\' && p + 1 < pat.length) { q++; lit = pat[q]; }
      if (lit !== '' && c === lit) { s++; p = q + 1; matched = true; }
      else if (d === '' && c === '') return true;
    }
    if (matched) continue;
    if (c === '' || backP < 0) return false;
    p = backP;
    s = ++backS;
  }
}

/** ftrace_match(): does `str` match a parsed pattern (any type but MATCH_INDEX). */
export function regexMatch(r: ParsedRegex, str: string): boolean {
  switch (r.type) {
    case MATCH_FULL: return str === r.search;
    case MATCH_FRONT_ONLY: return str.startsWith(r.search);
    case MATCH_MIDDLE_ONLY: return str.includes(r.search);
    case MATCH_END_ONLY: return str.endsWith(r.search);
    case MATCH_GLOB: return globMatch(r.search, str);
    default: return false;
  }
}
