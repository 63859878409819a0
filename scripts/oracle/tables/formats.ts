/**
 * printf/sprintf format strings at pass 2: every conversion with every flag, flag pairs,
 * widths, precisions, `*` arguments, length modifiers, malformed conversions, argument count
 * and type checks; and regular expression literals (`=~`, `!~`) that stap validates in pass 2.
 */
import { OracleCase, Table, p2 } from '../cases';

const CONV = ['d', 'i', 'u', 'x', 'X', 'o', 'p', 'c', 's', 'm', 'M', 'b', '%', 'n', 'f', 'e', 'g', 'a', 'q', 'z', 'y', 'D', 'S'];
const FLAGS = ['', '-', '+', ' ', '#', '0', '--', '-0', '0-', '+ ', '#0', '-#', '+-', '00', '##'];
const SIZES = ['', '5', '.2', '5.2', '*', '.*', '*.*', '0', '.0', '.', '5.', '99999999999', '.99999999999'];
const LENGTHS = ['h', 'l', 'll', 'L', 'hh', 'z', 'j', 't', 'q'];

function argFor(conv: string, kind: 'long' | 'string'): string {
  return kind === 'long' ? '42' : '"str"';
}

export const formats: Table = {
  name: 'formats',
  about: 'printf format strings (conversions, flags, widths, precisions, *, lengths, malformed) and regex literals at pass 2',
  cases(): OracleCase[] {
    const out: OracleCase[] = [];
    for (const c of CONV) {
      for (const f of FLAGS) {
        for (const kind of ['long', 'string'] as const) {
          out.push(p2(`conv:${c}:flag${JSON.stringify(f)}:${kind}`, `probe begin { printf("<%${f}${c}>\\n", ${argFor(c, kind)}) }`));
        }
      }
      for (const s of SIZES) {
        const stars = (s.match(/\*/g) ?? []).length;
        const extra = Array(stars).fill('3').join(', ');
        out.push(p2(`conv:${c}:size${JSON.stringify(s)}`, `probe begin { printf("<%${s}${c}>\\n", ${extra ? extra + ', ' : ''}${c === 's' || c === 'm' || c === 'M' ? '"str"' : '42'}) }`));
      }
      for (const l of LENGTHS) {
        out.push(p2(`conv:${c}:len${l}`, `probe begin { printf("<%${l}${c}>\\n", 42) }`));
      }
    }
    // argument count and kinds
    const misc = [
      'printf("%d %d\\n", 1)', 'printf("%d\\n", 1, 2)', 'printf("\\n", 1)', 'printf("%d\\n")', 'printf("%")', 'printf("%5")', 'printf("%-")',
      'printf("%.")', 'printf("%l")', 'printf("abc%")', 'printf("%%d\\n", 1)', 'printf("%*d\\n", "a", 1)', 'printf("%.*s\\n", "a", "b")',
      'printf("%*d\\n", 1)', 'printf("%d\\n", st)', 'printf("%s\\n", st)', 'printf("%d\\n", ar)', 'printf("%d\\n", @count(st))',
      'printf(fmt, 1)', 'printf(fmt)', 'printf("%d" "%s\\n", 1, "a")', 'printf("%d\\n" . "x", 1)', 'x = sprintf("%d", "a")',
      'x = sprintf("%s", 1)', 'x = sprintf("%d %s", 1)', 'x = sprintf("%d"); println(x)', 'x = sprintf(); println(x)', 'x = sprintf(1); println(x)',
      'printd(", ", 1, "a", 2)', 'printdln(", ", 1, "a")', 'printd(1, 2, 3)', 'printd(fmt, 1, 2)', 'printdln(",")', 'print(1, 2, "a")',
      'println()', 'print()', 'printf("%d\\n", 1 + "a")', 'printf("%1$d\\n", 1)', 'printf("%\'d\\n", 1)', 'printf("%I64d\\n", 1)',
      'printf("%-+ #0d\\n", 1)', 'printf("%+d %+d\\n", 1, -1)', 'printf("% 5d\\n", 1)', 'printf("%#o %#x %#X\\n", 8, 16, 16)',
      'printf("%c%c\\n", 65, "B")', 'printf("%.3b\\n", 1)', 'printf("%5b\\n", 1)', 'printf("%m\\n", 1)', 'printf("%.2M\\n", "ab")',
      `printf("${'%d'.repeat(40)}\\n", ${Array(40).fill('1').join(', ')})`, `printf("${'%d'.repeat(33)}\\n", ${Array(33).fill('1').join(', ')})`,
      `println(${Array(40).fill('1').join(', ')})`, `x = sprintf("${'%s'.repeat(40)}", ${Array(40).fill('"a"').join(', ')}); println(x)`,
    ];
    misc.forEach((m, i) => out.push(p2(`misc:${i}`, `global st, ar probe begin { fmt = "%d\\n"; st <<< 1; ar[1] = 1; ${m} }`)));
    // regex literals validated at pass 2
    const REGEX = [
      '', 'a', '.', '^', '$', '^$', 'a*', 'a+', 'a?', '*a', '+a', '?a', 'a**', 'a+*', 'a{2}', 'a{2,}', 'a{2,3}', 'a{,3}', 'a{3,2}', 'a{', 'a{x}',
      'a{1000}', 'a{256}', 'a{255}', '{1}', '(', ')', '()', '(a', 'a)', '(a|b)', 'a|', '|a', '||', '[', ']', '[]', '[]a]', '[^]a]', '[a-]',
      '[z-a]', '[a-z', '[[:alpha:]]', '[[:foo:]]', '[[:alpha:]', '[[.a.]]', '[[=a=]]', '[\\]]', '\\', 'a\\', '\\(', '\\)', '\\{', '\\1', '(a)\\1',
      '\\d', '\\w', '\\s', '\\b', '\\n', '\\t', '\\x41', '\\.', 'a.b', '(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)', '((((((((((a))))))))))', 'a|b|c',
      '(?:a)', '(?i)a', 'a*?', 'a+?', '[a-z]+@[a-z]+\\.com', '^[0-9]{1,3}(\\.[0-9]{1,3}){3}$', '\\/', '\\\\', '\x80', 'é',
    ];
    REGEX.forEach((r, i) => {
      const lit = JSON.stringify(r);
      out.push(p2(`regex:${i}`, `probe begin { if ("abc" =~ ${lit}) println(1) }`));
      if (i % 4 === 0) out.push(p2(`regex-not:${i}`, `probe begin { if ("abc" !~ ${lit}) println(1) }`));
    });
    out.push(p2('regex:var', 'probe begin { r = "a"; if ("abc" =~ r) println(1) }'));
    out.push(p2('regex:concat', 'probe begin { if ("abc" =~ "a" . "b") println(1) }'));
    out.push(p2('regex:lhs-long', 'probe begin { if (1 =~ "1") println(1) }'));
    out.push(p2('regex:rhs-long', 'probe begin { if ("1" =~ 1) println(1) }'));
    out.push(p2('regex:matched', 'probe begin { if ("abc" =~ "(b)") println(matched(1), ngroups()) }'));
    out.push(p2('regex:matched-no-match', 'probe begin { println(matched(0)) }'));
    out.push(p2('regex:assign', 'probe begin { x = "abc" =~ "b"; println(x) }'));
    return out;
  },
};
