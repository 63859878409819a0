#!/usr/bin/env python3
"""The variables SystemTap 4.8's non-syscall probe aliases define, for
test/elaborate/alias_vars.test.ts (names only; nothing of the bodies is kept).

Usage: scripts/tapset-names/alias_vars.py [--tapsets DIR] [--config FILE] [--out FILE]

Reads the installed tapsets (DIR, default /usr/share/systemtap/tapset: the generic directory,
linux/ and x86_64/), evaluates their preprocessor conditionals as stap 4.8 does for x86_64 on
Debian's 6.1 kernel (kernel_v 6.1.0, arch x86_64, runtime kernel, the CONFIG_ values of FILE,
default data/kernel/config.txt), expands the @define macros the alias bodies use, and writes
data/tapset-names/stap-4.8-alias-vars.txt: one line per public alias, `NAME var1 var2 ...`, the
variables its body assigns (sorted; `_`-prefixed private ones left out). An alias whose probe
points are other aliases also gets their variables (the union over its points). The syscall
families (syscall.*, nd_syscall.* ...) are left out: scripts/gen-syscall-tapsets.ts writes those
(`--syscalls --out FILE` writes them instead, to check the generated ones with alias_vars.ts FILE).
"""
import argparse
import fnmatch
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SYSCALL_FAMILIES = ('syscall.', 'nd_syscall.', 'dw_syscall.', 'nd1_syscall.', 'nd2_syscall.',
                    'tp_syscall.', 'kernel.syscall.')
KERNEL_V = (6, 1, 0)
STAP_V = (4, 8)


def strip_comments(t):
    """Removes comments and %{ %} embedded C (outside string literals)."""
    out, i, n = [], 0, len(t)
    while i < n:
        c = t[i]
        if c == '"':
            j = i + 1
            while j < n and t[j] != '"':
                j += 2 if t[j] == '\\' else 1
            out.append(t[i:j + 1])
            i = j + 1
        elif t.startswith('/*', i):
            j = t.find('*/', i + 2)
            i = n if j < 0 else j + 2
            out.append(' ')
        elif t.startswith('//', i) or (c == '#' and (i == 0 or t[i - 1] not in '$@')):
            j = t.find('\n', i)
            i = n if j < 0 else j
        elif t.startswith('%{', i):
            j = t.find('%}', i + 2)
            i = n if j < 0 else j + 2
            out.append(' ')
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def version(s):
    return tuple(int(x) for x in re.findall(r'\d+', s))


def cmp(a, op, b):
    return {'==': a == b, '!=': a != b, '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b}[op]


class Cond:
    def __init__(self, config):
        self.config = config

    def atom(self, lhs, op, rhs):
        rhs_s = rhs.strip('"')
        if lhs in ('kernel_v', 'kernel_vr'):
            r = version(rhs_s)
            return cmp(KERNEL_V, op, r + (0,) * (3 - len(r)))
        if lhs == 'systemtap_v':
            r = version(rhs_s)
            return cmp(STAP_V + (0,) * (len(r) - 2), op, r + (0,) * (2 - len(r)))
        if lhs == 'arch':
            return cmp('x86_64', op, rhs_s) if op in ('==', '!=') else False
        if lhs == 'runtime':
            return cmp('kernel', op, rhs_s)
        if lhs == 'systemtap_privilege':
            return cmp('stapdev', op, rhs_s)
        if lhs.startswith('CONFIG_'):
            val = self.config.get(lhs, '')
            if rhs.startswith('CONFIG_'):
                try:
                    return cmp(int(val), op, int(self.config.get(rhs, '0')))
                except ValueError:
                    return False
            if op in ('==', '!='):
                m = fnmatch.fnmatchcase(val, rhs_s)
                return m if op == '==' else not m
            try:
                return cmp(int(val), op, int(rhs_s))
            except ValueError:
                return False
        raise ValueError('unknown preprocessor condition %s %s %s' % (lhs, op, rhs))

    def eval(self, text):
        text = text.strip()
        if text.startswith(('@', '$')):  # @_IS_SREG_KERNEL (syscalls), $# (argv.stp): no aliases
            return False
        ors = re.split(r'\|\|', text)
        if len(ors) > 1:
            return any(self.eval(o) for o in ors)
        ands = re.split(r'&&', text)
        if len(ands) > 1:
            return all(self.eval(a) for a in ands)
        if text.startswith('(') and text.endswith(')'):
            return self.eval(text[1:-1])
        m = re.fullmatch(r'(\w+)\s*(==|!=|<=|>=|<|>)\s*("[^"]*"|\w+)', text)
        if not m:
            raise ValueError('unparsed preprocessor condition: ' + text)
        return self.atom(m.group(1), m.group(2), m.group(3))


def preprocess(t, cond):
    """Keeps the branches of %( cond %? a %: b %) that hold (nested ones too)."""
    tok = re.compile(r'%\(|%\?|%:|%\)|"(?:\\.|[^"\\])*"')

    def parse(i, stop):
        out = []
        while True:
            m = tok.search(t, i)
            if not m:
                out.append(t[i:])
                return ''.join(out), len(t), None
            if m.group(0).startswith('"'):
                out.append(t[i:m.end()])
                i = m.end()
                continue
            out.append(t[i:m.start()])
            g = m.group(0)
            if g in stop:
                return ''.join(out), m.end(), g
            if g == '%(' and re.search(r'@define\s+\w+\s*(\([^)]*\))?\s*$', t[max(0, m.start() - 200):m.start()]):
                body, i, end = parse(m.end(), ('%)',))      # a macro body, its conditionals kept
                out.append('%(' + body + '%)')
            elif g == '%(':
                q = t.find('%?', m.end())
                ok = cond.eval(t[m.end():q])
                then, i, end = parse(q + 2, ('%:', '%)'))
                other = ''
                if end == '%:':
                    other, i, end = parse(i, ('%)',))
                out.append(then if ok else other)
            else:
                out.append(g)
                i = m.end()

    return parse(0, ())[0]


MACRO_RE = re.compile(r'@define\s+(\w+)\s*(?:\(([^)]*)\))?\s*%\(')


def collect_macros(t, macros):
    """@define NAME(a, b) %( body %) (the body balanced on %( %) pairs)."""
    for m in MACRO_RE.finditer(t):
        i, depth = m.end(), 1
        while depth:
            j = re.compile(r'%\(|%\)').search(t, i)
            if not j:
                break
            depth += 1 if j.group(0) == '%(' else -1
            i = j.end()
        params = [p.strip() for p in (m.group(2) or '').split(',') if p.strip()]
        macros[m.group(1)] = (params, t[m.end():i - 2])


def expand_macros(body, macros, depth=0):
    if depth > 10:
        return body

    def repl(m):
        name = m.group(1)
        if name not in macros:
            return m.group(0)
        return expand_macros(macros[name][1], macros, depth + 1)  # its assignments; args aside

    return re.sub(r'@(\w+)', repl, body)


def strip_strings(t):
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', t)


def balanced_body(t, i):
    d, j = 1, i
    while d and j < len(t):
        if t[j] == '{':
            d += 1
        elif t[j] == '}':
            d -= 1
        j += 1
    return t[i:j - 1], j


ALIAS_RE = re.compile(r'\bprobe\s+([\w.]+)\s*\+?=\s*([^{]*)\{')
ASSIGN_RE = re.compile(r'(?<![\w$@.>])([A-Za-z_]\w*)\s*=(?!=)')


def tapset_files(tapsets):
    files = sorted(glob.glob(os.path.join(tapsets, '*.stp*')))
    files += sorted(glob.glob(os.path.join(tapsets, 'linux', '*.stp*')))
    files += sorted(glob.glob(os.path.join(tapsets, 'x86_64', '*.stp*')))
    return files


def read_config(path):
    config = {}
    for line in open(path):
        m = re.match(r'(CONFIG_\w+)=(.*)', line.strip())
        if m:
            config[m.group(1)] = m.group(2).strip('"')
    return config


def alias_vars(tapsets, config, syscalls=False):
    cond = Cond(config)
    texts, macros = [], {}
    for f in tapset_files(tapsets):
        t = preprocess(strip_comments(open(f, errors='replace').read()), cond)
        collect_macros(t, macros)
        if f.endswith('.stp'):
            texts.append(t)
    own, points = {}, {}
    for t in texts:
        for m in ALIAS_RE.finditer(t):
            name = m.group(1)
            body, _ = balanced_body(t, m.end())
            body = strip_strings(expand_macros(strip_strings(body), macros))
            vs = own.setdefault(name, set())
            vs.update(v for v in ASSIGN_RE.findall(body))
            for p in m.group(2).split(','):
                p = p.strip().rstrip('?!').strip()
                if p:
                    points.setdefault(name, []).append(p)
    memo = {}

    def full(name, seen=()):
        if name in memo:
            return memo[name]
        vs = set(own.get(name, ()))
        for p in points.get(name, ()):
            for a in own:
                if a != name and a not in seen and (a == p or ('*' in p and fnmatch.fnmatchcase(a, p))):
                    vs |= full(a, seen + (name,))
        memo[name] = vs
        return vs

    out = {}
    for name in own:
        if name.startswith('_') or name.startswith(SYSCALL_FAMILIES) != syscalls:
            continue
        out[name] = sorted(v for v in full(name) if not v.startswith('_'))
    return out


def main():
    ap = argparse.ArgumentParser(description='the variables of stap 4.8\'s probe aliases')
    ap.add_argument('--tapsets', default='/usr/share/systemtap/tapset')
    ap.add_argument('--config', default=os.path.join(ROOT, 'data', 'kernel', 'config.txt'))
    ap.add_argument('--out', default=os.path.join(ROOT, 'data', 'tapset-names', 'stap-4.8-alias-vars.txt'))
    ap.add_argument('--syscalls', action='store_true',
                    help='the syscall families instead (a check of the generated ones)')
    a = ap.parse_args()
    tapsets, config, outp, syscalls = a.tapsets, a.config, a.out, a.syscalls
    out = alias_vars(tapsets, read_config(config), syscalls)
    with open(outp, 'w') as f:
        f.write('# The variables of SystemTap 4.8\'s %s probe aliases (x86_64, Linux 6.1),\n'
                % ('syscall' if syscalls else 'non-syscall'))
        f.write('# written by scripts/tapset-names/alias_vars.py: NAME var1 var2 ... (names only).\n')
        for name in sorted(out):
            f.write(' '.join([name] + out[name]) + '\n')
    print('%d aliases' % len(out))


if __name__ == '__main__':
    main()
