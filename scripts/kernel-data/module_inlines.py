#!/usr/bin/env python3
"""Inline instances (DW_TAG_inlined_subroutine) inside the modules' core text: the loaded modules and
the installed-but-unloaded ones of modules.py (UNLOADED, at the layout modules.py gives them).

Usage: module_inlines.py WORKDIR OUTDIR   (after modules.py; python3 standard library only)
  WORKDIR  fetch.sh's work directory: the image package's .ko files (symbol tables) and the -dbg
           package's .ko files (DWARF)
  OUTDIR   data/kernel: writes module_inlines.gz and module_inlines_installed.gz (which modules and their kallsyms: the
           recorder's data/recordings/system.json.gz)

Every module's whole DWARF is dumped (`llvm-dwarfdump --debug-info`, ext4.ko: ~2.6 M lines,
~1 min for all of them). A relocatable object's DWARF addresses are section offsets, so an
instance's entry pc is placed through the concrete function containing it: the range of that
function holding the pc is the function's hot (`foo`) or cold (`foo.cold`) part, the ELF symbol
of that name starting at the range's start. Instances inside init text (freed after the module's
init, not in kallsyms) are dropped.

module_inlines.gz (the loaded modules) and module_inlines_installed.gz (the installed-but-unloaded
ones, read only for probes on them), per module (load order):
  M  name
  F  name  decl_file  decl_line  params        as inline_sites.gz (params = name:DWARF type;...)
  S  caller_symbol  offset  call_file  call_line
F lines sorted by (name, file, line), S lines by (caller, offset).
"""
import gzip, io, os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from inline_sites import parse_dies, scan_instances, abstract, sval, ref  # noqa: E402
from modules import Elf, read_snapshot, ko_paths, layout, KDIR, DDIR, SNAPSHOT, UNLOADED  # noqa: E402


def concrete_ranges(d):
    """[(lo, hi)] of a concrete DIE (low_pc/high_pc or DW_AT_ranges), or None."""
    if d.get('ranges'):
        return d['ranges']
    a = d['a']
    if 'DW_AT_low_pc' in a and 'DW_AT_high_pc' in a:
        lo = int(ref(a['DW_AT_low_pc']), 16)
        hi = int(ref(a['DW_AT_high_pc']), 16)
        return [(lo, hi if hi > lo else lo + hi)]
    return None


def main():
    work, outdir = sys.argv[1], sys.argv[2]
    mods, ksyms, _sysmod = read_snapshot(SNAPSHOT)
    paths = ko_paths()
    bufs = {True: io.StringIO(), False: io.StringIO()}   # loaded / installed-but-unloaded
    total = 0
    # the loaded modules in load order, then the installed-but-unloaded ones (modules.py's UNLOADED)
    todo = [(m['name'], paths[m['name']], True) for m in reversed(mods)]
    todo += [(os.path.basename(rel).replace('-', '_'), rel, False) for rel in UNLOADED]
    for name, rel, loaded in todo:
        elf = Elf(os.path.join(KDIR, rel + '.ko'))
        if loaded:
            in_kallsyms = {n for _a, t, n in ksyms.get(name, []) if t in 'tTwW'}
        else:
            # not loaded: the function symbols modules.py lays out (core text, no init text)
            off = layout(elf)[0]
            in_kallsyms = {s['name'] for s in elf.symbols() if s['type'] == 2 and s['shndx'] in off
                           and elf.sh[s['shndx']]['flags'] & 4}
        funcs_by_name = {}
        for s in elf.symbols():
            if s['type'] == 2 and 0 < s['shndx'] < len(elf.sh) and s['name'] in in_kallsyms:
                funcs_by_name.setdefault(s['name'].split('.')[0], []).append(s)
        dies = parse_dies(['llvm-dwarfdump', '--debug-info', os.path.join(DDIR, rel + '.ko')])

        def where(d, pc):
            sub = d['parent']
            while sub is not None and not (sub['tag'] == 'DW_TAG_subprogram' and concrete_ranges(sub)):
                sub = sub['parent']
            if sub is None:
                return None
            fn = abstract(dies, sub)
            if fn is None:
                return None
            rng = next((r for r in concrete_ranges(sub) if r[0] <= pc < r[1]), None)
            if rng is None:
                return None
            cands = [s for s in funcs_by_name.get(sval(fn['a']['DW_AT_name']), []) if s['value'] == rng[0]]
            if len(cands) != 1:
                return None   # init text (not in kallsyms), or ambiguous
            return (cands[0]['name'], pc - cands[0]['value'])

        funcs, sites = {}, {}
        scan_instances(dies, funcs, sites, where)
        buf = bufs[loaded]
        buf.write(f'M\t{name}\n')
        n = 0
        for key in sorted(funcs):
            rows = sorted({(w[0], w[1], cf, cl) for _pc, cf, cl, w in sites.get(key, ())})
            if not rows:
                continue
            buf.write(f'F\t{key[0]}\t{key[1]}\t{key[2]}\t{";".join(funcs[key])}\n')
            for caller, off, cf, cl in rows:
                buf.write(f'S\t{caller}\t{off:x}\t{cf}\t{cl}\n')
            n += len(rows)
        total += n
        print(f'{name}: {len(funcs)} inlined functions, {n} instances', file=sys.stderr)
    for loaded, out in ((True, 'module_inlines.gz'), (False, 'module_inlines_installed.gz')):
        with open(os.path.join(outdir, out), 'wb') as f:
            with gzip.GzipFile(fileobj=f, mode='wb', mtime=0, filename='') as g:
                g.write(bufs[loaded].getvalue().encode())
    print(f'module inline instances: {total}', file=sys.stderr)


if __name__ == '__main__':
    main()
