#!/usr/bin/env python3
"""Inline instances (DW_TAG_inlined_subroutine) of the simulated kernel's functions.

Usage: inline_sites.py WORKDIR OUTDIR MODEL_FUNCS
  WORKDIR      fetch.sh's work directory (vmlinux = the -dbg package's vmlinux, System.map)
  OUTDIR       data/kernel
  MODEL_FUNCS  the functions the machine model runs, one per line
               (node dist/scripts/model-functions.js > MODEL_FUNCS)

Scanning every compile unit of vmlinux for inline instances means dumping all of its DWARF
(hundreds of millions of lines); the model only runs a few hundred functions, so only the
compile units containing them are dumped (`llvm-dwarfdump --debug-info=CU_OFFSET -c`, ~2 s
each, ~3.5 min for all) and the inline instances whose containing symbol is a model function
are kept (the instances the model can reach).

Writes OUTDIR/inline_sites.gz (deterministic, gzip mtime 0), two kinds of lines:
  F  name  decl_file  decl_line  params       an inlined function; params = name:type;... (the
                                               abstract DW_TAG_subprogram's formal parameters,
                                               type as DWARF names it, e.g. 'sock *')
  S  caller_symbol  offset  call_file  call_line
                                               one inline instance of the last F: its entry pc
                                               (DW_AT_entry_pc, else low_pc / first range) as
                                               System.map symbol + hex offset; DW_AT_call_file/line
F lines are sorted by (name, file, line), S lines by address. Module DWARF is not scanned
(module_inlines.py does the modules).

Also writes OUTDIR/locals.gz: for each model function's out-of-line body, `L name` then one line
per formal parameter (P) and variable (V) in the scopes holding its entry pc (address + 5, past
the __fentry__ call, where stap evaluates an entry probe's variables):
  P|V  name  type  location  die_offset
  location: 'o' no DW_AT_location (optimized out), 'n' not available at the entry pc, 'c VALUE'
            DW_AT_const_value, 'e EXPR' the location expression there (DW_OP_ and register names
            dropped: 'reg5', 'fbreg -192', 'breg14 +0,deref,plus_uconst 0x98,stack_value')
"""
import gzip, io, os, re, subprocess, sys
from bisect import bisect_right

PREFIXES = ('/build/reproducible-path/linux-6.1.192/debian/build/build_amd64_none_amd64/',
            'debian/build/build_amd64_none_amd64/', '/build/reproducible-path/linux-6.1.192/')


def norm(p):
    for pre in PREFIXES:
        if p.startswith(pre):
            return p[len(pre):]
    return p


def load_sysmap(path):
    syms = []
    for line in open(path):
        a, t, n = line.split()[:3]
        if t in 'tTwW':
            syms.append((int(a, 16), n))
    syms.sort()
    return syms


die_re = re.compile(r'^0x([0-9a-f]+):(\s+)(DW_TAG_\w+|NULL)')
attr_re = re.compile(r'^\s+(DW_AT_\w+)\s+\((.*?)\)?\s*$')
range_re = re.compile(r'\[0x([0-9a-f]+), 0x([0-9a-f]+)\)')
loc_re = re.compile(r'^\s+\[0x([0-9a-f]+), 0x([0-9a-f]+)\): (.*)$')


def cu_table(vmlinux):
    """[(cu_offset, name, [(lo, hi), ...])] from the unit DIEs only."""
    out = subprocess.run(['llvm-dwarfdump', '--debug-info', '-r', '0', vmlinux],
                         capture_output=True, text=True).stdout
    cus = []
    cur = None
    in_ranges = False
    for line in out.splitlines():
        m = die_re.match(line)
        if m:
            if m.group(3) == 'DW_TAG_compile_unit':
                cur = [m.group(1), '', []]
                cus.append(cur)
            in_ranges = False
            continue
        if cur is None:
            continue
        m = attr_re.match(line)
        if m:
            k, v = m.group(1), m.group(2) or ''
            in_ranges = k == 'DW_AT_ranges'
            if k == 'DW_AT_name':
                cur[1] = v.strip('"')
            elif k == 'DW_AT_low_pc':
                cur.append(('low', int(v, 16)))
            elif k == 'DW_AT_high_pc':
                cur.append(('high', v))
        if in_ranges:
            for lo, hi in range_re.findall(line):
                cur[2].append((int(lo, 16), int(hi, 16)))
    res = []
    for c in cus:
        off, name, ranges = c[0], c[1], c[2]
        low = [x[1] for x in c[3:] if x[0] == 'low']
        high = [x[1] for x in c[3:] if x[0] == 'high']
        if low and high and not ranges:
            h = high[0]
            hi = low[0] + int(h, 16) if not h.startswith('0xffff') else int(h, 16)
            ranges = [(low[0], hi)]
        res.append((off, name, ranges))
    return res


def parse_dies(cmd):
    """The DIE tree llvm-dwarfdump prints for `cmd`: offset -> dict(off, tag, a (attrs), kids,
    parent, ranges)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    dies = {}          # offset -> dict(tag, attrs, params)
    stack = []         # (indent, die)
    cur = None
    cur_attr = None
    for line in p.stdout:
        m = die_re.match(line)
        if m:
            ind = len(m.group(2))
            while stack and stack[-1][0] >= ind:
                stack.pop()
            if m.group(3) == 'NULL':
                cur = None
                continue
            cur = {'off': m.group(1), 'tag': m.group(3), 'a': {}, 'kids': [], 'parent': stack[-1][1] if stack else None}
            if stack:
                stack[-1][1]['kids'].append(cur)
            dies[cur['off']] = cur
            stack.append((ind, cur))
            cur_attr = None
            continue
        if cur is None:
            continue
        m = attr_re.match(line)
        if m:
            cur_attr = m.group(1)
            cur['a'][cur_attr] = m.group(2) or ''
            if cur_attr == 'DW_AT_ranges':
                cur['ranges'] = [(int(a, 16), int(b, 16)) for a, b in range_re.findall(line)]
        elif cur_attr == 'DW_AT_ranges':
            cur.setdefault('ranges', []).extend((int(a, 16), int(b, 16)) for a, b in range_re.findall(line))
        elif cur_attr == 'DW_AT_location':
            m = loc_re.match(line)
            if m:
                expr = m.group(3).strip()
                if expr.count(')') > expr.count('('):
                    expr = expr[:-1]   # the attribute's closing parenthesis
                cur.setdefault('loclist', []).append((int(m.group(1), 16), int(m.group(2), 16), expr))
    p.wait()
    return dies


def ref(v):
    m = re.match(r'0x([0-9a-f]+)', v)
    return m.group(1) if m else None


def sval(v):
    m = re.search(r'"(.*)"', v)
    return m.group(1) if m else v


def abstract(dies, d):
    """The DIE holding a function's name and declaration (following abstract_origin/specification)."""
    seen = 0
    while d is not None and 'DW_AT_name' not in d['a'] and seen < 4:
        o = d['a'].get('DW_AT_abstract_origin') or d['a'].get('DW_AT_specification')
        d = dies.get(ref(o)) if o else None
        seen += 1
    return d


def scan_instances(dies, funcs, sites, where=None):
    """Add the inlined functions (funcs: key -> params) and their instances (sites: key ->
    {(pc, call file, call line[, where(die, pc)])}) of a parsed DIE tree."""
    for d in dies.values():
        if d['tag'] != 'DW_TAG_inlined_subroutine':
            continue
        a = d['a']
        origin = abstract(dies, dies.get(ref(a.get('DW_AT_abstract_origin', ''))))
        if origin is None:
            continue
        if 'DW_AT_entry_pc' in a:
            pc = int(ref(a['DW_AT_entry_pc']), 16)
        elif 'DW_AT_low_pc' in a:
            pc = int(ref(a['DW_AT_low_pc']), 16)
        elif d.get('ranges'):
            pc = d['ranges'][0][0]
        else:
            continue
        oa = origin['a']
        name = sval(oa['DW_AT_name'])
        key = (name, norm(sval(oa.get('DW_AT_decl_file', ''))), int(oa.get('DW_AT_decl_line', '0'), 0))
        if key not in funcs:
            funcs[key] = params_of(origin)
        site = (pc, norm(sval(a.get('DW_AT_call_file', ''))), int(a.get('DW_AT_call_line', '0'), 0))
        if where is not None:
            w = where(d, pc)
            if w is None:
                continue
            site = site + (w,)
        sites.setdefault(key, set()).add(site)


def params_of(fn):
    """name:type of a subprogram DIE's formal parameters (type as DWARF names it)."""
    params = []
    for c in fn['kids']:
        if c['tag'] == 'DW_TAG_formal_parameter' and 'DW_AT_name' in c['a']:
            params.append(sval(c['a']['DW_AT_name']) + ':' + sval(c['a'].get('DW_AT_type', '"void"')))
    return params


def scan_cu(vmlinux, off, funcs, sites, wanted_locals=None, local_rows=None):
    """Parse one unit's DIE tree: abstract inline subprograms and inlined_subroutine DIEs, and
    the parameters and locals of the functions in wanted_locals ({entry address: symbol})."""
    dies = parse_dies(['llvm-dwarfdump', '--debug-info=0x' + off, '-c', vmlinux])
    scan_instances(dies, funcs, sites)
    if wanted_locals is not None:
        scan_locals(dies, wanted_locals, local_rows)


REG = {'RAX': 0, 'RDX': 1, 'RCX': 2, 'RBX': 3, 'RSI': 4, 'RDI': 5, 'RBP': 6, 'RSP': 7}


def compact_expr(expr):
    """'DW_OP_breg14 R14+0, DW_OP_deref' -> 'breg14 0,deref' (register names dropped, offsets kept)."""
    out = []
    for op in re.split(r',\s*(?![^()]*\))', expr.strip()):
        op = op.strip().replace('DW_OP_', '')
        op = re.sub(r'\b(breg\d+) [A-Z0-9]+([+-]\d+)', r'\1 \2', op)
        op = re.sub(r'\b(reg\d+) [A-Z0-9]+', r'\1', op)
        out.append(op)
    return ','.join(out)


def location_at(d, pc):
    """Where a variable is at pc: 'o' no location (optimized out), 'n' not at pc, 'c VALUE' a
    constant (DW_AT_const_value), else 'e EXPR' (its DWARF location expression there)."""
    a = d['a']
    if 'DW_AT_const_value' in a:
        return 'c ' + a['DW_AT_const_value'].split()[0]
    if 'DW_AT_location' not in a:
        return 'o'
    v = a['DW_AT_location']
    if 'loclist' not in d and not re.match(r'^0x[0-9a-f]+:', v):
        return 'e ' + compact_expr(v)
    for lo, hi, expr in d.get('loclist', ()):
        if lo <= pc < hi:
            return 'e ' + compact_expr(expr)
    return 'n'


def scope_vars(fn, pc, out):
    """A function's formal parameters and the variables of its scopes that contain pc (lexical
    blocks; not those of inlined callees), in DWARF order."""
    for c in fn['kids']:
        if c['tag'] in ('DW_TAG_formal_parameter', 'DW_TAG_variable'):
            out.append(c)
        elif c['tag'] == 'DW_TAG_lexical_block':
            a = c['a']
            rs = c.get('ranges') or ([(int(ref(a['DW_AT_low_pc']), 16), int(ref(a['DW_AT_high_pc']), 16))]
                                     if 'DW_AT_low_pc' in a and 'DW_AT_high_pc' in a else [])
            if any(lo <= pc < hi for lo, hi in rs):
                scope_vars(c, pc, out)
    return out


def scan_locals(dies, wanted, rows):
    """rows[symbol] = lines for the concrete out-of-line body at each wanted entry address
    (wanted: {address: symbol name}, so clones such as finish_task_switch.isra.0 are found): 'P|V name type location-at-entry die-offset'; entry pc = address + 5, past the __fentry__ call
    (where stap evaluates the locations of an entry probe)."""
    for d in dies.values():
        if d['tag'] != 'DW_TAG_subprogram' or 'DW_AT_low_pc' not in d['a'] and not d.get('ranges'):
            continue
        low = int(ref(d['a']['DW_AT_low_pc']), 16) if 'DW_AT_low_pc' in d['a'] else d['ranges'][0][0]
        name = wanted.get(low)
        if name is None or name in rows or abstract(dies, d) is None:
            continue
        lines = []
        for v in scope_vars(d, low + 5, []):
            o = abstract(dies, v)
            if o is None or 'DW_AT_name' not in o['a']:
                continue
            kind = 'P' if v['tag'] == 'DW_TAG_formal_parameter' else 'V'
            typ = sval(o['a'].get('DW_AT_type', '"void"'))
            lines.append(f"{kind}\t{sval(o['a']['DW_AT_name'])}\t{typ}\t{location_at(v, low + 5)}\t{int(v['off'], 16):x}")
        rows[name] = lines


def main():
    work, outdir, model = sys.argv[1:4]
    vmlinux = os.path.join(work, 'vmlinux')
    syms = load_sysmap(os.path.join(work, 'System.map'))
    addrs = [s[0] for s in syms]
    by_name = {}
    for a, n in syms:
        by_name.setdefault(n, a)
    model_names = set(open(model).read().split())
    wanted = [by_name[n] for n in model_names if n in by_name]
    cus = cu_table(vmlinux)
    chosen = []
    for off, name, ranges in cus:
        if any(lo <= w < hi for w in wanted for lo, hi in ranges):
            chosen.append((off, name))
    sys.stderr.write(f'{len(wanted)} model functions in {len(chosen)} compile units\n')
    funcs, sites = {}, {}
    wanted = {by_name[n]: n for n in model_names if n in by_name}
    local_rows = {}
    for off, name in chosen:
        scan_cu(vmlinux, off, funcs, sites, wanted, local_rows)
    write_locals(os.path.join(outdir, 'locals.gz'), local_rows)
    buf = io.StringIO()
    n = 0
    for key in sorted(funcs):
        rows = []
        for pc, cf, cl in sorted(sites[key]):
            i = bisect_right(addrs, pc) - 1
            if i < 0 or syms[i][1] not in model_names:
                continue
            rows.append(f'S\t{syms[i][1]}\t{pc - syms[i][0]:x}\t{cf}\t{cl}\n')
        if not rows:
            continue
        buf.write(f'F\t{key[0]}\t{key[1]}\t{key[2]}\t{";".join(funcs[key])}\n')
        buf.writelines(rows)
        n += len(rows)
    data = buf.getvalue().encode()
    with open(os.path.join(outdir, 'inline_sites.gz'), 'wb') as f:
        with gzip.GzipFile(fileobj=f, mode='wb', mtime=0, filename='') as g:
            g.write(data)
    sys.stderr.write(f'{len(funcs)} inlined functions, {n} inline instances\n')


def write_locals(path, rows):
    """locals.gz: per function 'L name', then its P/V lines (see scan_locals); sorted by name."""
    buf = io.StringIO()
    for name in sorted(rows):
        buf.write(f'L\t{name}\n')
        for line in rows[name]:
            buf.write(line + '\n')
    with open(path, 'wb') as f:
        with gzip.GzipFile(fileobj=f, mode='wb', mtime=0, filename='') as g:
            g.write(buf.getvalue().encode())
    sys.stderr.write(f'{len(rows)} functions with locals\n')


if __name__ == '__main__':
    main()
