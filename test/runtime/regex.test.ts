/**
 * The regex engine (src/runtime/regex): stap's syntax and error messages, POSIX leftmost-longest
 * matches and submatches, and linear time on patterns that make a backtracking engine explode.
 *
 * Patterns are given as stap writes them between the quotes (raw: `\\.` is a literal dot, `\.`
 * any byte, as stap's regex compiler reads the literal).  Expected errors and positions are stap
 * 4.8's own (`stap -p2 -e 'probe begin { if ("abc" =~ "PATTERN") println(1) }'`, Debian 12);
 * the matching semantics of `.`, `$`, escapes and classes were read from the DFA code stap 4.8
 * generates for those patterns (`stap -p3`); submatch cases are the POSIX rules (leftmost-
 * longest, earlier subexpressions first) as in Glenn Fowler's testregex data.
 */
import { expect } from 'chai';
import * as fc from 'fast-check';
import { compileEre, ereMatch, newMatchState, matched, matchedStr, ngroups, CompiledEre, regexErrorText, rawOfValue } from '../../src/runtime/regex';
import { parseRegex, ParsedRegex } from '../../src/runtime/regex/syntax';
import { StapError } from '../../src/runtime/errors';
import { referenceMatch } from './regex-ref';

function re(p: string): CompiledEre {
  const r = compileEre(p);
  if ('error' in r) throw new Error(`${p}: ${regexErrorText(r)}`);
  return r;
}

function m(p: string, s: string): number {
  return ereMatch(re(p), s);
}

/** The group spans of the match ([start, end] pairs, -1 for a group that took no part), or null. */
function spans(p: string, s: string): number[] | null {
  const st = newMatchState();
  if (!ereMatch(re(p), s, st)) return null;
  matched(st, 0);
  return Array.from(st.spans!);
}

function err(p: string): string {
  const r = compileEre(p);
  return 'error' in r ? regexErrorText(r) : 'ok';
}

describe('regex: syntax and errors as stap 4.8 reports them', () => {
  const cases: [string, string][] = [
    ['(a', 'regex compilation error (at position 1): expected ), found end of regex'],
    ['(', 'regex compilation error (at position 0): expected ), found end of regex'],
    ['((a)', 'regex compilation error (at position 3): expected ), found end of regex'],
    ['a)b', "regex compilation error (at position 2): unbalanced ')'"],
    ['*a', "regex compilation error (at position 0): unexpected '*'"],
    ['a|*b', "regex compilation error (at position 2): unexpected '*'"],
    ['{', "regex compilation error (at position 0): unexpected '{'"],
    ['{1}', "regex compilation error (at position 0): unexpected '{'"],
    ['^*', "regex compilation error (at position 1): postfix closure '*' applied to anchoring operator"],
    ['$*', "regex compilation error (at position 1): postfix closure '*' applied to anchoring operator"],
    ['^+', "regex compilation error (at position 1): postfix closure '+' applied to anchoring operator"],
    ['a{', 'regex compilation error (at position 2): expected number'],
    ['a{x', 'regex compilation error (at position 3): expected number'],
    ['a{,}', 'regex compilation error (at position 3): expected number'],
    ['a{,2}', 'regex compilation error (at position 3): expected number'],
    ['a{ 1}', 'regex compilation error (at position 3): expected number'],
    ['a{1', 'regex compilation error (at position 3): unexpected end of regex'],
    ['a{1,', "regex compilation error (at position 4): expected '}' or number"],
    ['a{1,x}', "regex compilation error (at position 5): expected '}' or number"],
    ['a{1 }', "regex compilation error (at position 3): expected ',' or '}'"],
    ['a{1,2', 'regex compilation error (at position 4): expected }, found end of regex'],
    ['a{1,2x', 'regex compilation error (at position 5): expected }, found x'],
    ['x{99999}', 'regex compilation error (at position 8): 99999 is too large'],
    ['a{12345}', 'regex compilation error (at position 8): 12345 is too large'],
    ['a{0,32767}', 'regex compilation error (at position 10): 32767 is too large'],
    ['[', 'regex compilation error (at position 0): unclosed character class'],
    ['[a', 'regex compilation error (at position 1): unclosed character class'],
    ['[]', 'regex compilation error (at position 1): unclosed character class'],
    ['[^', 'regex compilation error (at position 1): unclosed character class'],
    ['[^]', 'regex compilation error (at position 2): unclosed character class'],
    ['[a-', 'regex compilation error (at position 2): unclosed character class'],
    ['[\\\\]', 'regex compilation error (at position 3): unclosed character class'],
    ['[[:alpha:]', "regex compilation error (at position 10): unclosed character class '[:alpha:'"],
    ['[[:', "regex compilation error (at position 3): unclosed character class '[:'"],
    ['[[:a', "regex compilation error (at position 4): unclosed character class '[:'"],
    ['[[:foo:]]', "regex compilation error: unknown character class 'foo'"],
    ['[[:ALPHA:]]', "regex compilation error: unknown character class 'ALPHA'"],
    ['[[:word:]]', "regex compilation error: unknown character class 'word'"],
    ['[z-a]', 'regex compilation error (at position 4): Inverted character range z-a'],
    ['[z-a', 'regex compilation error (at position 4): Inverted character range z-a'],
    ['[a-[.z.]]', 'regex compilation error (at position 4): Inverted character range a-['],
    ['[a-[:alpha:]]', 'regex compilation error (at position 4): Inverted character range a-['],
    ['\\\\', 'regex compilation error (at position 2): unexpected end of regex'],
    ['a\\\\', 'regex compilation error (at position 3): unexpected end of regex'],
    ['\\1', 'regex compilation error (at position 1): three octal digits required in escape sequence'],
    ['\\08', 'regex compilation error (at position 1): three octal digits required in escape sequence'],
    ['\\4', 'regex compilation error (at position 1): octal escape sequence out of range'],
    ['\\400', 'regex compilation error (at position 1): octal escape sequence out of range'],
    ['\\x4', 'regex compilation error (at position 1): two hex digits required in escape sequence'],
    ['\\x4g', 'regex compilation error (at position 2): two hex digits required in escape sequence'],
    ['\\xg1', 'regex compilation error (at position 3): two hex digits required in escape sequence'],
  ];
  for (const [p, e] of cases) it(`"${p}"`, () => expect(err(p)).to.equal(e));

  it('accepts what stap accepts', () => {
    for (const p of ['a)', ')', '()', '(|a)', 'a||b', '|', 'a|', '|a', 'a**', 'a*+', 'a+?', 'a??', 'a{2}{3}', 'a{1,2}*',
      'a{0}', 'a{0,0}', 'a{12344}', 'a{1,255}', '[]a]', '[^]a]', '[a-]', '[-a]', '[]-a]', '[a-z-9]', '[[:alpha:]-z]',
      '[[=a=]]', '[[.a.]]', '[\\]]', '[\\n]', '\\.', '\\n', '\\d', '\\377', '\\x41', '\\\\(', '^', '$', 'a^b', 'a$b', '(^a)',
      '(a$)*', '(^)*', '(a))', 'a{01}', '((((((((((a))))))))))', '}', ']', 'a}']) {
      expect(err(p), p).to.equal('ok');
    }
  });

  it('bounds nesting and size instead of overflowing', () => {
    expect(err('('.repeat(5000) + 'a' + ')'.repeat(5000))).to.match(/nested more than 1000 levels/);
    expect(err('a' + '*'.repeat(5000))).to.match(/nested more than 1000 levels/);
    expect(err('(a{1000}){1000}')).to.equal('regex compilation error: regular expression too large');
  });
});

describe('regex: matching', () => {
  it('`.` is any byte, newline included; `$` only the end; `^` only the start', () => {
    expect(m('^a.c$', 'abc')).to.equal(1);
    expect(m('^a.c$', 'a\nc')).to.equal(1);
    expect(m('^.$', '\xe9')).to.equal(1);
    expect(m('a$', 'a\n')).to.equal(0);
    expect(m('^b', 'ab')).to.equal(0);
    expect(m('a^b', 'ab')).to.equal(0);
    expect(m('(^a|b)c', 'xbc')).to.equal(1);
    expect(m('(^a|b)c', 'xac')).to.equal(0);
    expect(m('^$', '')).to.equal(1);
    expect(m('$^', '')).to.equal(1);
    expect(m('', 'anything')).to.equal(1);
  });
  it('escapes: C escapes by the cursor, then `\\` escapes at the regex level', () => {
    expect(m('x\\\\.y', 'x.y')).to.equal(1);
    expect(m('x\\\\.y', 'xzy')).to.equal(0);
    expect(m('x\\.y', 'xzy')).to.equal(1); // "\." is `.`: the backslash is only the literal's
    expect(m('a\\nb', 'a\nb')).to.equal(1);
    expect(m('a\\\\nb', 'anb')).to.equal(1);
    expect(m('\\101\\x42', 'AB')).to.equal(1);
    expect(m('a\\\\*', 'a*')).to.equal(1);
    expect(m('^a\\\\*$', 'aa')).to.equal(0);
    expect(m('^a\\*$', 'aa')).to.equal(1);
    expect(m('\\x2e', 'z')).to.equal(1); // an escaped `.` keeps its meaning
    expect(m('\\xe9', 'caf\xe9')).to.equal(1);
  });
  it('classes: names, ranges, negation, `]` first, `-` at the ends, escapes inside', () => {
    expect(m('[[:digit:]]+x', 'ab12x')).to.equal(1);
    expect(m('^[[:alpha:]_][[:alnum:]_]*$', '_foo9')).to.equal(1);
    expect(m('^[[:alpha:]_][[:alnum:]_]*$', '9foo')).to.equal(0);
    expect(m('^[[:space:]]+$', ' \t\n\v\f\r')).to.equal(1);
    expect(m('^[[:punct:]]+$', '!/:@[`{~')).to.equal(1);
    expect(m('^[[:xdigit:]]+$', '09afAF')).to.equal(1);
    expect(m('[[:upper:]]', 'abc')).to.equal(0);
    expect(m('[[:lower:]]', 'ABC')).to.equal(0);
    expect(m('^[[:blank:]]$', '\t')).to.equal(1);
    expect(m('^[[:cntrl:]]$', '\x7f')).to.equal(1);
    expect(m('^[[:print:]]+$', ' ~')).to.equal(1);
    expect(m('^[[:graph:]]$', ' ')).to.equal(0);
    expect(m('[]a]', ']')).to.equal(1);
    expect(m('[^]a]', 'a')).to.equal(0);
    expect(m('^[^]a]$', '\n')).to.equal(1);
    expect(m('[a-c-]', '-')).to.equal(1);
    expect(m('^[\\]]$', ']')).to.equal(1);
    expect(m('^[\\\\]]$', ']')).to.equal(1);
    expect(m('^[\\n]$', '\n')).to.equal(1);
    expect(m('^[\\\\n]$', 'n')).to.equal(1);
    expect(m('^[[=a=]]$', '=')).to.equal(0); // `[[=a=]` then a literal `]`
    expect(m('^[[=a=]]$', '=]')).to.equal(1);
  });
  it('repetition counts, alternation, groups', () => {
    expect(m('a{2,3}', 'caab')).to.equal(1);
    expect(m('a{2,3}', 'cab')).to.equal(0);
    expect(m('^a{2}$', 'aaa')).to.equal(0);
    expect(m('^a{2,}$', 'aaaaa')).to.equal(1);
    expect(m('^(ab){0}c$', 'c')).to.equal(1);
    expect(m('^a{1,2}{3}$', 'aaaaaa')).to.equal(1);
    expect(m('^a{1,2}{3}$', 'aaaaaaa')).to.equal(0);
    expect(m('(foo|bar)+$', 'zbarfoo')).to.equal(1);
    expect(m('^(|a)b$', 'b')).to.equal(1);
    expect(m('^()$', '')).to.equal(1);
    expect(m('a/b}', 'a/b}')).to.equal(1);
    expect(m('a)', 'ab')).to.equal(1); // a last `)` is ignored, as in stap
  });
  it('a NUL ends the text, as in stap\'s C strings', () => {
    expect(m('^ab$', 'ab\0cd')).to.equal(1);
    expect(m('c', 'ab\0cd')).to.equal(0);
  });
});

describe('regex: POSIX submatches (matched(n))', () => {
  const cases: [string, string, number[] | null][] = [
    ['(a|ab)(c|bcd)(d*)', 'abcd', [0, 4, 0, 2, 2, 3, 3, 4]],
    ['(a|ab)(bc|c)', 'abc', [0, 3, 0, 2, 2, 3]],
    ['(ab|a)(bc|c)', 'abc', [0, 3, 0, 2, 2, 3]],
    ['(wee|week)(knights|night)', 'weeknights', [0, 10, 0, 3, 3, 10]],
    ['(a*)(b|abc)(c*)', 'abc', [0, 3, 0, 1, 1, 2, 2, 3]],
    ['(.*)c(.*)', 'abcde', [0, 5, 0, 2, 3, 5]],
    ['a*(a*)', 'aa', [0, 2, 2, 2]],
    ['(a*)*', 'b', [0, 0, 0, 0]],
    ['(a*)*', 'a', [0, 1, 0, 1]],
    ['(a*)+', 'b', [0, 0, 0, 0]],
    ['(a*|b)*', 'ab', [0, 2, 1, 2]],
    ['(a+|b)*', 'ab', [0, 2, 1, 2]],
    ['(a+|b)+', 'ab', [0, 2, 1, 2]],
    ['(a+|b){0,}', 'ab', [0, 2, 1, 2]],
    ['(a|b)*c|(a|ab)*c', 'abc', [0, 3, 1, 2, -1, -1]],
    ['((a)|b)+', 'ab', [0, 2, 1, 2, -1, -1]], // group 2 took no part in group 1's last iteration
    ['(a)|b', 'b', [0, 1, -1, -1]],
    ['x(a|b)?y', 'xy', [0, 2, -1, -1]],
    ['([a-z]+)-([0-9]+)?', 'xx abc-12 yy', [3, 9, 3, 6, 7, 9]],
    ['(b*)', 'abb', [0, 0, 0, 0]], // leftmost first, then longest
    ['(b+)', 'abb', [1, 3, 1, 3]],
    ['(a|ab)*', 'abab', [0, 4, 2, 4]],
    ['(a{1,2}){2}', 'aaa', [0, 3, 2, 3]],
    ['((a)(b)?)+', 'aba', [0, 3, 2, 3, 2, 3, -1, -1]],
  ];
  for (const [p, s, want] of cases) it(`"${p}" against "${s}"`, () => expect(spans(p, s)).to.deep.equal(want));

  it('matched, matched_str and ngroups, and their errors', () => {
    const st = newMatchState();
    const r = re('([a-z]+)-([0-9]+)?');
    expect(() => matched(st, 0)).to.throw(StapError, 'Attempted to get subexpression 0 from failed match');
    expect(() => ngroups(st)).to.throw(StapError, 'Attempted to get subexpression count from failed match');
    expect(ereMatch(r, 'xx abc-12 yy', st)).to.equal(1);
    expect(matched(st, 0)).to.equal('abc-12');
    expect(matched(st, 1)).to.equal('abc');
    expect(matched(st, 2)).to.equal('12');
    expect(matchedStr(st)).to.equal('abc-12');
    expect(ngroups(st)).to.equal(3);
    expect(() => matched(st, 3)).to.throw(StapError, 'Attempted to get nonexistent subexpression 3');
    ereMatch(r, 'abc-', st);
    expect(matched(st, 2)).to.equal('');
    expect(ereMatch(r, '123', st)).to.equal(0);
    expect(() => matched(st, 1)).to.throw(StapError, 'Attempted to get subexpression 1 from failed match');
  });

  it('agrees with an exhaustive reference on random patterns and texts (overall match and every group)', function () {
    this.timeout(60000);
    const atom = fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '^', '$', '()');
    const pattern: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
      p: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        atom,
        fc.tuple(tie('p'), tie('p')).map(([x, y]) => x + y),
        fc.tuple(tie('p'), tie('p')).map(([x, y]) => `(${x}|${y})`),
        tie('p').map((x) => `(${x})`),
        fc.tuple(tie('p'), fc.constantFrom('*', '+', '?', '{2}', '{0,2}', '{1,}')).map(([x, q]) => `(${x})${q}`),
      ),
    })).p;
    fc.assert(fc.property(pattern, fc.array(fc.constantFrom('a', 'b'), { maxLength: 5 }).map((a) => a.join('')), (p, s) => {
      const parsed = parseRegex(p) as ParsedRegex;
      let want: number[] | null;
      try {
        want = referenceMatch(parsed.root, parsed.ngroups, s);
      } catch {
        return true; // too many parses for the reference
      }
      expect(m(p, s), `${p} =~ ${s}`).to.equal(want ? 1 : 0);
      expect(spans(p, s), `${p} against ${s}`).to.deep.equal(want);
      return true;
    }), { numRuns: Number(process.env.REGEX_RUNS ?? 3000), seed: Number(process.env.REGEX_SEED ?? 18) });
  });
});

describe('regex: linear time', () => {
  const within = (ms: number, f: () => void): void => {
    const t = process.hrtime.bigint();
    f();
    const took = Number(process.hrtime.bigint() - t) / 1e6;
    expect(took, `took ${took.toFixed(1)} ms`).to.be.below(ms);
  };
  it('patterns that make backtracking engines explode match in milliseconds', () => {
    within(200, () => expect(m('^(a|a)*$', 'a'.repeat(46) + '!')).to.equal(0));
    within(200, () => expect(m('^(a|aa)*$', 'a'.repeat(5000) + '!')).to.equal(0));
    within(200, () => expect(m('(x+x+)+y', 'x'.repeat(5000))).to.equal(0));
    within(200, () => expect(m('^(a*)*b', 'a'.repeat(5000))).to.equal(0));
    within(200, () => expect(m('(.*a){20}', 'a'.repeat(19) + 'b'.repeat(5000))).to.equal(0));
  });
  it('submatches too, on long texts', () => {
    within(1500, () => expect(spans('^(a|a)*$', 'a'.repeat(2000))).to.deep.equal([0, 2000, 1999, 2000]));
    within(1500, () => expect(spans('(a.*b|a)*', 'a'.repeat(2000))).to.deep.equal([0, 2000, 1999, 2000]));
    within(1500, () => expect(spans('((a|ab)(c|bcd))+(d*)', 'abcd'.repeat(400))![1]).to.equal(1600));
  });
  it('rawOfValue gives back the bytes of a value whose literal text is unknown', () => {
    expect(m(rawOfValue('a\\.b'), 'a.b')).to.equal(1);
    expect(m(rawOfValue('a\\.b'), 'axb')).to.equal(0);
    expect(m('^' + rawOfValue('\n\\*') + '$', '\n*')).to.equal(1);
  });
});
