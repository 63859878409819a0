#!/usr/bin/env python3
"""Global variables of vmlinux with their DWARF types, for @var("name[@cu]").

Usage: globals.py WORKDIR OUTDIR   (python3 standard library only)
  WORKDIR/dwarf_vars.tsv   top-level DW_TAG_variable DIEs (dwarf_funcs.py VARS_TSV, see fetch.sh)
  WORKDIR/System.map       the -dbg package's System.map
Writes OUTDIR/globals.gz, one line per variable, in DWARF (compile unit) order, which is the order
stap's search over the compile units meets them:
  name  address  type  cu
  address : hex, from DW_OP_addr of the definition (checked against System.map)
  type    : the DWARF type as llvm-dwarfdump names it ('long unsigned int', 'task_struct *',
            'atomic_long_t[43]'); src/kernel/globals.ts maps it onto BTF
  cu      : the compile unit's source file; '*' for a variable only declared in C (extern, no
            definition in any unit: jiffies is a linker-script alias of jiffies_64), whose address
            comes from the symbol table as stap takes it
Definitions with a specification (a declaration elsewhere in the unit) take name and type from
it. Left out: compiler-made names (__UNIQUE_ID_*, __addressable_*), variables at address 0 and
variables whose address System.map does not name (discarded init data).
"""
import gzip, os, sys

work, out = sys.argv[1], sys.argv[2]
syms = {}
types = {}
for line in open(os.path.join(work, 'System.map')):
    a, t, n = line.split()[:3]
    syms.setdefault(n, set()).add(int(a, 16))
    types.setdefault(n, t)

rows = {}
order = []
for line in open(os.path.join(work, 'dwarf_vars.tsv')):
    f = line.rstrip('\n').split('\t')
    rows[f[0]] = f
    order.append(f[0])

lines = []
defined = set()
declared = {}
for off in order:
    f = rows[off]
    name, dfile, dline, typ, addr, flags, origin, cu = f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]
    seen = 0
    while (not name or not typ) and origin in rows and seen < 4:
        g = rows[origin]
        name, typ, origin = name or g[1], typ or g[4], g[7]
        seen += 1
    if not name or name.startswith('__UNIQUE_ID') or name.startswith('__addressable_'):
        continue
    if not addr:
        if 'D' in flags and typ:
            declared.setdefault(name, typ)
        continue
    a = int(addr, 16)
    if a == 0 or a not in syms.get(name, ()):
        continue
    defined.add(name)
    lines.append(f'{name}\t{a:x}\t{typ}\t{cu}')
for name, typ in sorted(declared.items()):
    if name in defined or name not in syms or types[name] not in 'DdBbRr':
        continue
    for a in sorted(syms[name]):
        lines.append(f'{name}\t{a:x}\t{typ}\t*')
data = ('\n'.join(lines) + '\n').encode('latin1')
with open(os.path.join(out, 'globals.gz'), 'wb') as fo:
    fo.write(gzip.compress(data, 9, mtime=0))
print(f'globals.gz: {len(lines)} variables, {len(data)} bytes raw', file=sys.stderr)
