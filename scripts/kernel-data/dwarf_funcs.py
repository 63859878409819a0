#!/usr/bin/env python3
"""Stream `llvm-dwarfdump --debug-info -r 1 vmlinux` on stdin; print one TSV line per
top-level DW_TAG_subprogram:  offset  name  file  line  inline  low_pc  flags  origin
  inline  : DW_AT_inline value (empty if absent), e.g. DW_INL_declared_inlined
  low_pc  : hex address of an out-of-line body (empty for abstract/declaration DIEs); for a body
            with DW_AT_ranges (hot/cold split: foo + foo.cold) the start of its first range
  flags   : 'D' declaration, 'E' external
  origin  : DIE offset named by DW_AT_abstract_origin / DW_AT_specification (hex) or empty
Paths are made relative to the kernel source tree.

With an argument VARS_TSV, top-level DW_TAG_variable DIEs go to that file, one line each:
  offset  name  file  line  type  addr  flags  origin  cu
  type    : the DW_AT_type name as llvm-dwarfdump prints it ('long unsigned int', 'task_struct *')
  addr    : hex DW_OP_addr of DW_AT_location (empty: a declaration, or not at a fixed address)
  cu      : the compile unit's source file (what @var("name@file") names)"""
import re, sys

PREFIXES = ('/build/reproducible-path/linux-6.1.192/debian/build/build_amd64_none_amd64/',
            'debian/build/build_amd64_none_amd64/', '/build/reproducible-path/linux-6.1.192/')
die_re = re.compile(r'^0x([0-9a-f]+):\s+(DW_TAG_\w+)')
attr_re = re.compile(r'^\s+(DW_AT_\w+)\s+\((.*)\)\s*$')
# DW_AT_ranges spans lines: "(0xOFFSET" then one "[0xLOW, 0xHIGH)" line per range, the first the entry
ranges_re = re.compile(r'^\s+DW_AT_ranges\s+\(0x[0-9a-f]+\s*$')
range_re = re.compile(r'^\s+\[0x([0-9a-f]+), 0x[0-9a-f]+\)')
out = sys.stdout
vout = open(sys.argv[1], 'w') if len(sys.argv) > 1 else None
cur = None
cu_name = ''
addr_re = re.compile(r'DW_OP_addr 0x([0-9a-f]+)')

def norm(p):
    for pre in PREFIXES:
        if p.startswith(pre):
            return p[len(pre):]
    return p

def flush():
    if cur is None:
        return
    a = cur
    if a['tag'] == 'DW_TAG_variable':
        flush_var(a)
        return
    if a['tag'] != 'DW_TAG_subprogram':
        return
    name = a.get('DW_AT_name', '')
    f = a.get('DW_AT_decl_file', '')
    line = a.get('DW_AT_decl_line', '')
    origin = a.get('DW_AT_abstract_origin') or a.get('DW_AT_specification') or ''
    if origin:
        m = re.match(r'0x([0-9a-f]+)', origin)
        origin = m.group(1) if m else ''
    low = a.get('DW_AT_low_pc', '')
    if low.startswith('0x'):
        low = low[2:].lstrip('0') or '0'
    flags = ('D' if a.get('DW_AT_declaration') == 'true' else '') + \
            ('E' if a.get('DW_AT_external') in ('true', '0x01') else '')
    out.write('\t'.join((a['off'], name, norm(f), line, a.get('DW_AT_inline', ''), low, flags, origin)) + '\n')

def flush_var(a):
    origin = a.get('DW_AT_specification') or ''
    if origin:
        m = re.match(r'0x([0-9a-f]+)', origin)
        origin = m.group(1) if m else ''
    t = a.get('DW_AT_type', '')
    m = re.search(r'"(.*)"', t)
    t = m.group(1) if m else ''
    m = addr_re.search(a.get('DW_AT_location', ''))
    addr = m.group(1).lstrip('0') or '0' if m else ''
    flags = ('D' if a.get('DW_AT_declaration') == 'true' else '') + \
            ('E' if a.get('DW_AT_external') in ('true', '0x01') else '')
    vout.write('\t'.join((a['off'], a.get('DW_AT_name', ''), norm(a.get('DW_AT_decl_file', '')), a.get('DW_AT_decl_line', ''),
                          t, addr, flags, origin, cu_name)) + '\n')


for raw in sys.stdin:
    m = die_re.match(raw)
    if m:
        flush()
        tag = m.group(2)
        if tag == 'DW_TAG_compile_unit':
            cur = {'off': m.group(1), 'tag': tag}
        elif tag == 'DW_TAG_subprogram' or (tag == 'DW_TAG_variable' and vout is not None):
            cur = {'off': m.group(1), 'tag': tag}
        else:
            cur = None
        continue
    if cur is None:
        continue
    if ranges_re.match(raw):
        cur['ranges'] = True
        continue
    if cur.get('ranges') is True:
        m = range_re.match(raw)
        cur['ranges'] = False
        if m and 'DW_AT_low_pc' not in cur:
            # a function split into hot and cold parts: its entry is the start of the first range
            cur['DW_AT_low_pc'] = '0x' + m.group(1)
        continue
    m = attr_re.match(raw)
    if m:
        k, v = m.group(1), m.group(2)
        if v.startswith('"') and v.endswith('"'):
            v = v[1:-1]
        if k in ('DW_AT_decl_line',):
            v = str(int(v, 0))
        cur[k] = v
        if cur['tag'] == 'DW_TAG_compile_unit' and k == 'DW_AT_name':
            cu_name = norm(v)
flush()
