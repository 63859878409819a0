#!/usr/bin/env python3
"""Stream `llvm-dwarfdump --debug-info -r 1 vmlinux` on stdin; print one TSV line per
top-level DW_TAG_subprogram:  offset  name  file  line  inline  low_pc  flags  origin
  inline  : DW_AT_inline value (empty if absent), e.g. DW_INL_declared_inlined
  low_pc  : hex address of an out-of-line body (empty for abstract/declaration DIEs)
  flags   : 'D' declaration, 'E' external
  origin  : DIE offset named by DW_AT_abstract_origin / DW_AT_specification (hex) or empty
Paths are made relative to the kernel source tree."""
import re, sys

PREFIXES = ('/build/reproducible-path/linux-6.1.192/debian/build/build_amd64_none_amd64/',
            'debian/build/build_amd64_none_amd64/', '/build/reproducible-path/linux-6.1.192/')
die_re = re.compile(r'^0x([0-9a-f]+):\s+(DW_TAG_\w+)')
attr_re = re.compile(r'^\s+(DW_AT_\w+)\s+\((.*)\)\s*$')
out = sys.stdout
cur = None

def norm(p):
    for pre in PREFIXES:
        if p.startswith(pre):
            return p[len(pre):]
    return p

def flush():
    if cur is None:
        return
    a = cur
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

for raw in sys.stdin:
    m = die_re.match(raw)
    if m:
        flush()
        cur = {'off': m.group(1)} if m.group(2) == 'DW_TAG_subprogram' else None
        continue
    if cur is None:
        continue
    m = attr_re.match(raw)
    if m:
        k, v = m.group(1), m.group(2)
        if v.startswith('"') and v.endswith('"'):
            v = v[1:-1]
        if k in ('DW_AT_decl_line',):
            v = str(int(v, 0))
        cur[k] = v
flush()
