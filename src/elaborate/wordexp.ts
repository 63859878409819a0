/**
 * The checks of glibc's wordexp(3) with WRDE_NOCMD | WRDE_UNDEF, which stap applies to the `-c`
 * command to find the executable an unspecified `process` probe point means
 * (tapsets.cxx: "invalid -c command for unspecified process probe").  Only what decides the
 * error is modelled: the first word (the program) is split as the shell would, without globbing.
 */

export type WordexpError = 'badchar' | 'badval' | 'cmdsub' | 'syntax';

export type WordexpResult = { ok: true; words: string[] } | { ok: false; error: WordexpError };

/** stap's text for each wordexp failure (the second error of the chain). */
export const WORDEXP_MESSAGES: Record<WordexpError, string> = {
  badchar: 'command contains illegal characters',
  badval: 'command contains undefined shell variables',
  cmdsub: 'command contains command substitutions',
  syntax: 'command contains shell syntax errors',
};

const ILLEGAL = new Set(['\n', '|', '&', ';', '<', '>', '(', ')', '{', '}']);
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
const SPECIAL = new Set(['#', '?', '$', '!', '-', '*', '@']);

/** Expand `cmd` as wordexp(cmd, WRDE_NOCMD | WRDE_UNDEF) would, against `env`. */
export function wordexp(cmd: string, env: Record<string, string>): WordexpResult {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let i = 0;
  const fail = (error: WordexpError): WordexpResult => ({ ok: false, error });
  /** `$...` at i (i on the `$`): the value, or an error. */
  const dollar = (): { v: string } | WordexpError => {
    const n = cmd[i + 1];
    if (n === '(') {
      if (cmd[i + 2] !== '(') return 'cmdsub';
      // $(( arithmetic )): no command runs; find the closing `))`
      const end = cmd.indexOf('))', i + 3);
      if (end < 0) return 'syntax';
      const inner = cmd.slice(i + 3, end);
      if (inner.includes('`') || inner.includes('$(')) return 'cmdsub';
      i = end + 2;
      return { v: inner };
    }
    if (n === '{') {
      const end = cmd.indexOf('}', i + 2);
      if (end < 0) return 'syntax';
      const body = cmd.slice(i + 2, end);
      const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[#?$!*@-])(.*)$/s.exec(body);
      if (!m) return 'syntax';
      i = end + 1;
      const [, name, rest] = m;
      if (rest.includes('`') || rest.includes('$(')) return 'cmdsub';
      const v = lookup(name);
      // ${X:-word}, ${X-word}, ${X:=word}... supply a value: no undefined-variable error
      if (v === undefined) return /^:?[-=+?]/.test(rest) ? { v: '' } : 'badval';
      return { v };
    }
    if (n !== undefined && NAME_START.test(n)) {
      let j = i + 1;
      while (j < cmd.length && NAME_CHAR.test(cmd[j])) j++;
      const v = lookup(cmd.slice(i + 1, j));
      i = j;
      return v === undefined ? 'badval' : { v };
    }
    if (n !== undefined && (/[0-9]/.test(n) || SPECIAL.has(n))) {
      i += 2;
      const v = lookup(n);
      return v === undefined ? 'badval' : { v };
    }
    i += 1;
    return { v: '$' };
  };
  const lookup = (name: string): string | undefined => {
    if (name === '$') return '1';
    if (name === '?') return '0';
    if (name === '#') return '0';
    if (name === '-') return '';
    if (name === '*' || name === '@') return '';
    if (name === '0') return 'sh';
    return Object.prototype.hasOwnProperty.call(env, name) ? env[name] : undefined;
  };
  while (i < cmd.length) {
    const c = cmd[i];
    if (c === ' ' || c === '\t') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
      i++;
      continue;
    }
    if (ILLEGAL.has(c)) return fail('badchar');
    inWord = true;
    if (c === '\\') {
      if (i + 1 >= cmd.length) return fail('syntax');
      cur += cmd[i + 1];
      i += 2;
    } else if (c === "'") {
      const end = cmd.indexOf("'", i + 1);
      if (end < 0) return fail('syntax');
      cur += cmd.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= cmd.length) return fail('syntax');
        const d = cmd[i];
        if (d === '"') { i++; break; }
        if (d === '`') return fail('cmdsub');
        if (d === '\\' && i + 1 < cmd.length && '$`"\\\n'.includes(cmd[i + 1])) { cur += cmd[i + 1]; i += 2; continue; }
        if (d === '$') {
          const r = dollar();
          if (typeof r === 'string') return fail(r);
          cur += r.v;
          continue;
        }
        cur += d;
        i++;
      }
    } else if (c === '`') {
      return fail('cmdsub');
    } else if (c === '$') {
      const r = dollar();
      if (typeof r === 'string') return fail(r);
      cur += r.v;
    } else {
      cur += c;
      i++;
    }
  }
  if (inWord) words.push(cur);
  return { ok: true, words };
}
