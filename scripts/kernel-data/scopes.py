#!/usr/bin/env python3
"""Inline callees, labels and line records of the functions in the model's compile units.

Usage: scopes.py WORKDIR OUTDIR MODEL_FUNCS      (the arguments of inline_sites.py)

What stap 4.8 resolves `.callee("F")`, `.callees(N)`, `.label("L")` and `func@file+N` /
`func@file:N` statements from, for every out-of-line function of the compile units that hold the
model's functions (the units inline_sites.py dumps; all of vmlinux's DWARF is hundreds of millions
of lines, too much to scan):
  - callees: stap 4.8 walks a function's DW_TAG_inlined_subroutine children (through lexical
    blocks); DWARF 5's DW_TAG_call_site (this kernel's real calls) is not a tag 4.8 knows, so only
    inline callees are listed (checked with the oracle: `-l 'kernel.function("vfs_read").callees'`
    lists __access_ok, add_rchar and inc_syscr, not rw_verify_area).
  - labels: DW_TAG_label children (through lexical blocks and inlined bodies), with the variables
    in scope and available at the label's address.
  - lines: the rows of the unit's line table (`llvm-dwarfdump --debug-line=OFFSET`) inside the
    function's address ranges, in its declaration file, from its declaration line up to the next
    function declared in that file; a line is dropped when all its addresses belong to smaller lines,
    and is probed at its lowest address (what `-l 'kernel.statement("bio_init@block/bio.c:*")'`
    lists: 248 shares its one address with 247, 271 has one of its own) (what `-l 'kernel.statement("bio_init@block/bio.c:*")'` lists).

Writes OUTDIR/scopes.gz (deterministic, gzip mtime 0), per function:
  F  symbol  decl_file  decl_line
  I  depth  name  decl_file  decl_line  offset  call_file  call_line  kind
                                        an inline instance (depth 1 = a direct callee; depth d+1 sits
                                        inside the last depth d); kind 'l' has DW_AT_low_pc, 'r' only
                                        DW_AT_ranges (stap 4.8 lists a callee only from 'l' instances)
  L  name  decl_line  offset  vars      vars: 'name:type;...' in scope with a location at offset
  N  line:offset,...                    line records (line delta-encoded from decl_line, offset hex)
"""
import gzip, io, multiprocessing, os, re, subprocess, sys
from bisect import bisect_left
from inline_sites import (load_sysmap, cu_table, parse_dies, ref, sval, abstract, norm, location_at)

row_re = re.compile(r"^0x([0-9a-f]{16})\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s*(.*)$")
file_re = re.compile(r'^file_names\[\s*(\d+)\]:')
name_re = re.compile(r'^\s+name: "(.*)"')
dir_idx_re = re.compile(r'^\s+dir_index: (\d+)')
incdir_re = re.compile(r'^include_directories\[\s*(\d+)\] = "(.*)"')


def line_table(vmlinux, off):
    """[(address, line, file name)] of one line program (every row but end_sequence: stap 4.8
    lists lines whose only rows are not is_stmt, e.g. bio_alloc_bioset's line 516)."""
    p = subprocess.Popen(['llvm-dwarfdump', '--debug-line=0x%x' % off, vmlinux],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    dirs, files, rows = {}, {}, []
    cur = None
    for line in p.stdout:
        m = row_re.match(line)
        if m:
            if 'end_sequence' in m.group(5):
                continue
            rows.append((int(m.group(1), 16), int(m.group(2)), int(m.group(4))))
            continue
        m = incdir_re.match(line)
        if m:
            dirs[int(m.group(1))] = m.group(2)
            continue
        m = file_re.match(line)
        if m:
            cur = int(m.group(1))
            files[cur] = ['', 0]
            continue
        if cur is not None:
            m = name_re.match(line)
            if m:
                files[cur][0] = m.group(1)
                continue
            m = dir_idx_re.match(line)
            if m:
                files[cur][1] = int(m.group(1))
                cur = None
    p.wait()
    names = {}
    for i, (n, d) in files.items():
        full = n if n.startswith('/') or d == 0 else dirs.get(d, '') + '/' + n
        names[i] = norm(full)
    return [(a, l, names.get(f, '')) for a, l, f in rows]


def die_ranges(d):
    a = d['a']
    if d.get('ranges'):
        return d['ranges']
    if 'DW_AT_low_pc' in a and 'DW_AT_high_pc' in a:
        lo = int(ref(a['DW_AT_low_pc']), 16)
        h = a['DW_AT_high_pc']
        hi = int(ref(h), 16) if h.startswith('0x') and int(ref(h), 16) > lo else lo + int(h, 0)
        return [(lo, hi)]
    return []


def entry_pc(d):
    a = d['a']
    if 'DW_AT_entry_pc' in a:
        return int(ref(a['DW_AT_entry_pc']), 16)
    if 'DW_AT_low_pc' in a:
        return int(ref(a['DW_AT_low_pc']), 16)
    return d['ranges'][0][0] if d.get('ranges') else None


def walk(dies, node, depth, low, out_inl, out_lab, scopes):
    """Inline instances (nested, with depth) and labels under a function or inline body."""
    for c in node['kids']:
        t = c['tag']
        if t == 'DW_TAG_lexical_block':
            walk(dies, c, depth, low, out_inl, out_lab, scopes + [c])
        elif t == 'DW_TAG_inlined_subroutine':
            o = abstract(dies, dies.get(ref(c['a'].get('DW_AT_abstract_origin', ''))))
            pc = entry_pc(c)
            if o is None or pc is None:
                continue
            oa = o['a']
            out_inl.append((depth, sval(oa['DW_AT_name']), norm(sval(oa.get('DW_AT_decl_file', ''))),
                            int(oa.get('DW_AT_decl_line', '0'), 0), pc - low,
                            norm(sval(c['a'].get('DW_AT_call_file', ''))), int(c['a'].get('DW_AT_call_line', '0'), 0),
                            'r' if 'DW_AT_low_pc' not in c['a'] else 'l'))
            walk(dies, c, depth + 1, low, out_inl, out_lab, scopes + [c])
        elif t == 'DW_TAG_label' and depth == 1:
            a = c['a']
            if 'DW_AT_name' not in a or 'DW_AT_low_pc' not in a:
                continue
            pc = int(ref(a['DW_AT_low_pc']), 16)
            out_lab.append((sval(a['DW_AT_name']), int(a.get('DW_AT_decl_line', '0'), 0), pc - low,
                            label_vars(dies, scopes, pc)))


def label_vars(dies, scopes, pc):
    """name:type of the variables of the scopes holding a label that have a location at its pc
    (innermost scope first, as stap lists them)."""
    out = []
    for s in reversed(scopes):
        if s['tag'] == 'DW_TAG_lexical_block' and not any(lo <= pc < hi for lo, hi in die_ranges(s)):
            continue
        for v in s['kids']:
            if v['tag'] not in ('DW_TAG_formal_parameter', 'DW_TAG_variable'):
                continue
            o = abstract(dies, v)
            if o is None or 'DW_AT_name' not in o['a']:
                continue
            if location_at(v, pc) in ('o', 'n'):
                continue
            out.append(sval(o['a']['DW_AT_name']) + ':' + sval(o['a'].get('DW_AT_type', '"void"')))
    return out


VMLINUX, BY_ADDR = '', {}


def scan_unit(unit):
    """One compile unit: {symbol: (file, line, inline instances, labels, lines)}."""
    off, cuname = unit
    out = {}
    dies = parse_dies(['llvm-dwarfdump', '--debug-info=0x' + off, '-c', VMLINUX])
    cu = dies.get(off) or next(iter(dies.values()))
    stmt = cu['a'].get('DW_AT_stmt_list')
    rows = line_table(VMLINUX, int(stmt, 16)) if stmt else []
    by_file = {}    # file -> ([addresses ascending], [(address, line)])
    for a, l, f in sorted(rows):
        e = by_file.setdefault(f, ([], []))
        e[0].append(a)
        e[1].append((a, l))
    decls = {}      # file -> the declaration lines of its functions (where a function's lines end)
    for d in dies.values():
        if d['tag'] == 'DW_TAG_subprogram' and 'DW_AT_decl_line' in d['a']:
            decls.setdefault(norm(sval(d['a'].get('DW_AT_decl_file', ''))), set()).add(int(d['a']['DW_AT_decl_line'], 0))
    for d in dies.values():
        if d['tag'] != 'DW_TAG_subprogram':
            continue
        rs = die_ranges(d)
        if not rs:
            continue
        low = rs[0][0]
        sym = BY_ADDR.get(low)
        o = abstract(dies, d)
        if sym is None or o is None or sym in out:
            continue
        file = norm(sval(o['a'].get('DW_AT_decl_file', '')))
        line = int(o['a'].get('DW_AT_decl_line', '0'), 0)
        inl, lab = [], []
        walk(dies, d, 1, low, inl, lab, [d])
        end = min([x for x in decls.get(file, ()) if x > line], default=1 << 30)
        addrs = {}
        keys, frows = by_file.get(file, ([], []))
        for lo, hi in rs:
            for a, l in frows[bisect_left(keys, lo):bisect_left(keys, hi)]:
                if line <= l < end:
                    addrs.setdefault(l, set()).add(a)
        lines, seen = [], set()
        for l in sorted(addrs):
            if addrs[l] - seen:
                lines.append((l, min(addrs[l]) - low))
            seen |= addrs[l]
        out[sym] = (file, line, inl, lab, lines)
    return cuname, out


def main():
    work, outdir, model = sys.argv[1:4]
    vmlinux = os.path.join(work, 'vmlinux')
    syms = load_sysmap(os.path.join(work, 'System.map'))
    by_addr = {}
    for a, n in syms:
        by_addr.setdefault(a, n)
    by_name = {}
    for a, n in syms:
        by_name.setdefault(n, a)
    wanted = [by_name[n] for n in set(open(model).read().split()) if n in by_name]
    chosen = [(off, name) for off, name, ranges in cu_table(vmlinux)
              if any(lo <= w < hi for w in wanted for lo, hi in ranges)]
    only = os.environ.get('SCOPES_ONLY')     # a unit name, to try the script on one unit
    if only:
        chosen = [c for c in chosen if c[1].endswith(only)]
    sys.stderr.write(f'{len(chosen)} compile units\n')
    global VMLINUX, BY_ADDR
    VMLINUX, BY_ADDR = vmlinux, by_addr
    out = {}
    with multiprocessing.Pool(int(os.environ.get('SCOPES_JOBS', '2'))) as pool:
        for k, (cuname, part) in enumerate(pool.imap(scan_unit, chosen)):
            for sym, v in part.items():
                out.setdefault(sym, v)
            sys.stderr.write(f'{k + 1}/{len(chosen)} {cuname}: {len(out)} functions\n')
    buf = io.StringIO()
    for sym in sorted(out):
        file, line, inl, lab, lines = out[sym]
        buf.write(f'F\t{sym}\t{file}\t{line}\n')
        for depth, n, df, dl, o, cf, cl, kind in inl:
            buf.write(f'I\t{depth}\t{n}\t{df}\t{dl}\t{o:x}\t{cf}\t{cl}\t{kind}\n')
        for n, dl, o, vs in lab:
            buf.write(f'L\t{n}\t{dl}\t{o:x}\t{";".join(vs)}\n')
        if lines:
            prev, parts = line, []
            for l, o in lines:
                parts.append(f'{l - prev}:{o:x}')
                prev = l
            buf.write('N\t' + ','.join(parts) + '\n')
    with open(os.path.join(outdir, 'scopes.gz'), 'wb') as f:
        with gzip.GzipFile(fileobj=f, mode='wb', mtime=0, filename='') as g:
            g.write(buf.getvalue().encode())
    sys.stderr.write(f'{len(out)} functions\n')


if __name__ == '__main__':
    main()
