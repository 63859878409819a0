#!/usr/bin/env python3
"""Loadable modules of the simulated kernel: the modules the real Debian 12 guest has loaded, at the
addresses that guest's kernel gave them.

Usage: modules.py WORKDIR OUTDIR   (run after gen.py; python3 standard library only)

Inputs (see fetch.sh):
  data/recordings/system.json.gz                  the recorder's snapshot of the real guest (systemd
                                                  and the model's services running): its /proc/modules,
                                                  the module lines of /proc/kallsyms, `ls /sys/module`
                                                  (scripts/record/, FORMAT.md)
  WORKDIR/img/lib/modules/<abi>/kernel/**.ko      the image package's modules: section sizes and
                                                  flags, __mcount_loc relocations, split .BTF
  WORKDIR/dbgmod/usr/lib/debug/lib/modules/...     the -dbg package's modules (DWARF decl_file/line)
  WORKDIR/vmlinux.btf (or OUTDIR/vmlinux.btf.gz)   base BTF (split module BTF refers to it)
Outputs:
  OUTDIR/modules.gz      one block per module, load order (the reverse of /proc/modules):
                           M <name> <base hex> <core size hex> <text size hex> <refcnt> <used-by,...|-> <Live|Unloaded>
                           <offset hex> <type> <name>[\t<file>\t<line>]   every core symbol /proc/kallsyms
                                                                         lists, by address (kallsyms
                                                                         order among equal addresses)
                           @<offset hex>                                  dyn_ftrace sites
                         then one line `S <name> <name> ...`: every directory of /sys/module
  OUTDIR/modules.btf.gz  the modules' split BTF merged into one blob continuing vmlinux's ids and
                         string offsets (ids/offsets below the base counts refer to vmlinux)

After them the installed modules that are not loaded (UNLOADED: NFS), with their text symbols
laid out where the loader would place them next, no ftrace sites (not loaded, not traceable).

Addresses, core sizes and symbol types are the guest's own (its module area is vmalloc'ed, init
sections freed asynchronously, so bases move by a few pages between boots: the snapshot keeps one).
Text sections are placed as layout_sections() places them (checked against kallsyms); text size
(core_layout.text_size, what is_module_text_address() tests) is the page-aligned end of the text
group with STRICT_MODULE_RWX. ftrace sites are the __mcount_loc relocations at those addresses
(sites in .init.text are gone: freed after the module's init).
"""
import gzip, os, struct, subprocess, sys

WORK, OUT = (sys.argv[1], sys.argv[2]) if __name__ == '__main__' else (os.environ.get('KDATA_WORK', '/tmp/kernel-data-work'), '')
HERE = os.path.dirname(os.path.abspath(__file__))
ABI = '6.1.0-56-amd64'
KDIR = os.path.join(WORK, 'img/lib/modules', ABI, 'kernel')
DDIR = os.path.join(WORK, 'dbgmod/usr/lib/debug/lib/modules', ABI, 'kernel')
PAGE = 4096
SHF_WRITE, SHF_ALLOC, SHF_EXEC = 1, 2, 4
SHF_RO_AFTER_INIT = 0x00200000
# Installed but not loaded: the NFS client and server stacks (what the nfs, nfsd and sunrpc tapsets
# probe), in the dependency order mounting an NFS share and starting nfs-kernel-server would load
# them. stap resolves module("nfs").function(...) from the -dbg .ko whether or not it is loaded;
# their probes register only once the module is loaded, which the machine never does.
UNLOADED = [
    'fs/netfs/netfs', 'fs/fscache/fscache', 'net/sunrpc/sunrpc', 'fs/nfs_common/grace', 'fs/lockd/lockd',
    'fs/nfs_common/nfs_acl', 'net/sunrpc/auth_gss/auth_rpcgss', 'fs/nfs/nfs', 'fs/nfs/nfsv2', 'fs/nfs/nfsv3',
    'net/dns_resolver/dns_resolver', 'fs/nfs/nfsv4', 'fs/nfsd/nfsd',
]


def align(v, a):
    return (v + a - 1) // a * a if a > 1 else v


class Elf:
    def __init__(self, path):
        self.d = d = open(path, 'rb').read()
        shoff, = struct.unpack_from('<Q', d, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
        self.sh = []
        for i in range(shnum):
            nm, typ, flags, addr, off, size, link, info, al, ent = struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize)
            self.sh.append(dict(nm=nm, type=typ, flags=flags, off=off, size=size, link=link, info=info, align=al, ent=ent))
        so = self.sh[shstrndx]['off']
        for s in self.sh:
            s['name'] = self.cstr(so + s['nm'])
        self.byname = {s['name']: i for i, s in enumerate(self.sh)}

    def cstr(self, o):
        return self.d[o:self.d.index(b'\0', o)].decode('latin1')

    def data(self, name):
        s = self.sh[self.byname[name]]
        return self.d[s['off']:s['off'] + s['size']]

    def symbols(self):
        st = self.sh[self.byname['.symtab']]
        stro = self.sh[st['link']]['off']
        out = []
        for i in range(st['size'] // 24):
            nm, info, other, shndx, val, size = struct.unpack_from('<IBBHQQ', self.d, st['off'] + i * 24)
            out.append(dict(name=self.cstr(stro + nm), bind=info >> 4, type=info & 15, shndx=shndx, value=val, size=size))
        return out


def layout(elf):
    """section index -> offset in the core layout; (text size, core size)"""
    off = {}
    size = 0
    groups = [
        lambda f: f & SHF_EXEC,
        lambda f: not (f & (SHF_EXEC | SHF_WRITE)) and not (f & SHF_RO_AFTER_INIT),
        lambda f: (f & SHF_RO_AFTER_INIT) and not (f & SHF_EXEC),
        lambda f: (f & SHF_WRITE) and not (f & (SHF_EXEC | SHF_RO_AFTER_INIT)),
    ]
    text_size = 0
    for g, pred in enumerate(groups):
        for i, s in enumerate(elf.sh):
            if i in off or not (s['flags'] & SHF_ALLOC) or s['name'].startswith('.init') or not pred(s['flags']):
                continue
            size = align(size, s['align'] or 1)
            off[i] = size
            size += s['size']
        if g == 0:
            text_size = align(size, PAGE)   # debug_align(): STRICT_MODULE_RWX
        if g < 2:
            size = align(size, PAGE)
    # the core copy of symtab/strtab (add_kallsyms) follows the data
    size += elf.sh[elf.byname['.symtab']]['size'] // 3 + elf.sh[elf.byname['.strtab']]['size'] // 2
    return off, text_size, align(size, PAGE)


def dwarf_locs(dbg):
    """function name -> [(file, line, low_pc)] for out-of-line bodies"""
    if not os.path.exists(dbg):
        return {}
    p = subprocess.run(f"llvm-dwarfdump --debug-info -r 1 '{dbg}' 2>/dev/null | python3 '{HERE}/dwarf_funcs.py'",
                       shell=True, capture_output=True, text=True, check=True)
    rows = {}
    for line in p.stdout.splitlines():
        off, name, f, ln, inl, low, flags, origin = line.split('\t')
        rows[off] = (name, f, ln, low, origin)
    res = {}
    for off, (name, f, ln, low, origin) in rows.items():
        if not low:
            continue
        seen = 0
        while (not name or not f) and origin and origin in rows and seen < 4:
            o = rows[origin]
            name, f, ln = name or o[0], f or o[1], ln or o[2]
            origin = o[4]
            seen += 1
        if name:
            res.setdefault(name, []).append((f, ln, int(low, 16)))
    return res


# ---------------------------------------------------------------- BTF merge
KIND_REF = {2, 8, 9, 10, 11, 12, 13, 14, 17, 18}   # third word is a type id


def btf_parse(b):
    magic, ver, flags, hl, toff, tlen, soff, slen = struct.unpack_from('<HBBIIIII', b, 0)
    assert magic == 0xeb9f
    return b[hl + toff:hl + toff + tlen], b[hl + soff:hl + soff + slen]


def btf_count(types):
    n, p = 0, 0
    while p < len(types):
        p += 12 + btf_extra(types, p)
        n += 1
    return n


def btf_extra(t, p):
    info, = struct.unpack_from('<I', t, p + 4)
    kind, vlen = (info >> 24) & 0x1f, info & 0xffff
    return {1: 4, 3: 12, 4: 12 * vlen, 5: 12 * vlen, 6: 8 * vlen, 13: 8 * vlen, 14: 4, 15: 12 * vlen, 17: 4, 19: 12 * vlen}.get(kind, 0)


def btf_remap(types, base_n, base_s, tshift, sshift):
    out = bytearray(types)
    T = lambda i: i if i < base_n else i - base_n + tshift
    S = lambda o: o if o < base_s else o - base_s + sshift
    p = 0
    n = 0
    while p < len(out):
        nm, info, st = struct.unpack_from('<III', out, p)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        struct.pack_into('<I', out, p, S(nm))
        if kind in KIND_REF:
            struct.pack_into('<I', out, p + 8, T(st))
        q = p + 12
        if kind == 3:
            a, b_, c = struct.unpack_from('<III', out, q)
            struct.pack_into('<II', out, q, T(a), T(b_))
        elif kind in (4, 5):
            for k in range(vlen):
                mn, mt, mo = struct.unpack_from('<III', out, q + 12 * k)
                struct.pack_into('<II', out, q + 12 * k, S(mn), T(mt))
        elif kind == 6:
            for k in range(vlen):
                mn, = struct.unpack_from('<I', out, q + 8 * k)
                struct.pack_into('<I', out, q + 8 * k, S(mn))
        elif kind == 19:
            for k in range(vlen):
                mn, = struct.unpack_from('<I', out, q + 12 * k)
                struct.pack_into('<I', out, q + 12 * k, S(mn))
        elif kind == 13:
            for k in range(vlen):
                mn, mt = struct.unpack_from('<II', out, q + 8 * k)
                struct.pack_into('<II', out, q + 8 * k, S(mn), T(mt))
        elif kind == 15:
            for k in range(vlen):
                mt, = struct.unpack_from('<I', out, q + 12 * k)
                struct.pack_into('<I', out, q + 12 * k, T(mt))
        p = q + btf_extra(out, p)
        n += 1
    return bytes(out), n


def split_btf(elf, base_n, base_s, tshift, sshift, btf_types, btf_strs):
    """Append a module's split .BTF (types and strings renumbered after those before it);
    -> the new (type shift, string shift)."""
    if '.BTF' not in elf.byname:
        return tshift, sshift
    t, st = btf_parse(elf.data('.BTF'))
    rt, n = btf_remap(t, base_n, base_s, tshift, sshift)
    btf_types.append(rt)
    btf_strs.append(st)
    return tshift + n, sshift + len(st)


def read_snapshot(path):
    """The guest's modules from the recorder's system snapshot (data/recordings/system.json.gz,
    scripts/record/FORMAT.md): -> (modules in /proc/modules order, kallsyms lines per module,
    the /sys/module directories)"""
    import json
    d = json.load(gzip.open(path, 'rt', encoding='latin1'))
    mods, ksyms = [], {}
    for line in d['modules'].splitlines():
        if not line.strip():
            continue
        name, size, refcnt, usedby, state, addr = line.split(' ')[:6]
        mods.append(dict(name=name, size=int(size), refcnt=int(refcnt),
                         usedby=usedby.rstrip(',') if usedby != '-' else '-', base=int(addr, 16)))
    for line in d['kallsyms']['modules'].splitlines():
        if not line.strip():
            continue
        addr, typ, rest = line.split(' ', 2)
        name, mod = rest.split('\t')
        ksyms.setdefault(mod.strip('[]'), []).append((int(addr, 16), typ, name))
    sysmod = d['sysModule'] if isinstance(d['sysModule'], list) else d['sysModule'].split()
    return mods, ksyms, sysmod


SNAPSHOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'data', 'recordings', 'system.json.gz')


def ko_paths():
    """module name -> path of its .ko under KDIR (relative, without .ko)"""
    out = {}
    for root, _, files in os.walk(KDIR):
        for f in files:
            if f.endswith('.ko'):
                rel = os.path.relpath(os.path.join(root, f[:-3]), KDIR)
                out[f[:-3].replace('-', '_')] = rel
    return out


def main():
    base_types, base_strs = btf_parse(open(os.path.join(WORK, 'vmlinux.btf'), 'rb').read() if os.path.exists(os.path.join(WORK, 'vmlinux.btf')) else gzip.open(os.path.join(OUT, 'vmlinux.btf.gz')).read())
    base_n = btf_count(base_types) + 1
    base_s = len(base_strs)
    tshift, sshift = base_n, base_s
    btf_types, btf_strs = [], []
    lines = []
    mods, ksyms, sysmod = read_snapshot(SNAPSHOT)
    paths = ko_paths()
    nsyms = nsites = nlocs = 0
    for m in reversed(mods):   # load order
        name, base = m['name'], m['base']
        rel = paths[name]
        elf = Elf(os.path.join(KDIR, rel + '.ko'))
        # core layout offsets (layout_sections(): the text group comes first and its offsets agree
        # with /sys/module/M/sections of the real guest); the base is the guest's
        off, text_size, _core = layout(elf)
        core = m['size']
        saddr = {elf.sh[i]['name']: base + o for i, o in off.items()}
        fn = next((sy for sy in elf.symbols() if sy['type'] == 2 and sy['shndx'] in off and elf.sh[sy['shndx']]['name'] == '.text'), None)
        real = {n: a for a, _t, n in ksyms.get(name, [])}
        if fn and fn['name'] in real and real[fn['name']] != saddr['.text'] + fn['value']:
            raise SystemExit(f'{name}: .text at {saddr[".text"]:x} does not match kallsyms {fn["name"]} {real[fn["name"]]:x}')
        lines.append(f"M {name} {base:x} {core:x} {text_size:x} {m['refcnt']} {m['usedby']} Live")
        locs = dwarf_locs(os.path.join(DDIR, rel + '.ko'))
        # function offsets inside their section (DWARF low_pc of a relocatable object is section-relative)
        sec_of = {}
        for s in elf.symbols():
            if s['type'] == 2 and 0 < s['shndx'] < len(elf.sh):
                sec_of.setdefault(s['name'], (elf.sh[s['shndx']]['name'], s['value']))
        syms = []
        for k, (a, t, n) in enumerate(ksyms.get(name, [])):
            loc = ''
            if t in 'tTwW':
                cands = locs.get(n) or locs.get(n.split('.')[0])
                if cands:
                    sv = sec_of.get(n, (None, None))[1]
                    # the DWARF body starting at this symbol (a foo.cold part has none)
                    pick = next((c for c in cands if c[2] == sv), None)
                    if pick and pick[0]:
                        loc = f'\t{pick[0]}\t{pick[1]}'
                        nlocs += 1
            syms.append((a - base, k, t, n, loc))
        syms.sort(key=lambda x: (x[0], x[1]))
        for o, _, t, n, loc in syms:
            lines.append(f'{o:x} {t} {n}{loc}')
        nsyms += len(syms)
        # __mcount_loc: R_X86_64_64 relocations against text, at the sections' real addresses
        symtab = elf.symbols()
        sites = []
        if '.rela__mcount_loc' in elf.byname:
            r = elf.data('.rela__mcount_loc')
            for k in range(len(r) // 24):
                ro, info, add = struct.unpack_from('<QQq', r, k * 24)
                s = symtab[info >> 32]
                sec = elf.sh[s['shndx']]['name'] if 0 < s['shndx'] < len(elf.sh) else ''
                if sec not in saddr or sec.startswith('.init'):
                    continue   # .init.text: freed after the module's init
                sites.append(saddr[sec] + s['value'] + add - base)
        for ip in sorted(set(sites)):
            lines.append(f'@{ip:x}')
        nsites += len(sites)
        # split BTF
        tshift, sshift = split_btf(elf, base_n, base_s, tshift, sshift, btf_types, btf_strs)
        print(f'{name}: base {base:x} core {core:#x} text {text_size:#x} syms {len(syms)} sites {len(sites)}', file=sys.stderr)
    # the installed-but-unloaded modules: where the loader would put them next (layout_sections())
    addr = max(m['base'] + m['size'] for m in mods) + PAGE
    for rel in UNLOADED:
        name = os.path.basename(rel).replace('-', '_')
        elf = Elf(os.path.join(KDIR, rel + '.ko'))
        off, text_size, core = layout(elf)
        base = addr
        addr += core + PAGE
        lines.append(f'M {name} {base:x} {core:x} {text_size:x} 0 - Unloaded')
        locs = dwarf_locs(os.path.join(DDIR, rel + '.ko'))
        syms = []
        for sy in elf.symbols():
            if sy['type'] != 2 or sy['shndx'] not in off or not (elf.sh[sy['shndx']]['flags'] & SHF_EXEC):
                continue
            o = off[sy['shndx']] + sy['value']
            t = 'W' if sy['bind'] == 2 else ('T' if sy['bind'] == 1 else 't')
            loc = ''
            cands = locs.get(sy['name']) or locs.get(sy['name'].split('.')[0])
            pick = next((c for c in cands or () if c[2] == sy['value']), None)
            if pick and pick[0]:
                loc = f'\t{pick[0]}\t{pick[1]}'
                nlocs += 1
            syms.append((o, t, sy['name'], loc))
        syms.sort(key=lambda x: (x[0], x[2]))
        for o, t, n, loc in syms:
            lines.append(f'{o:x} {t} {n}{loc}')
        nsyms += len(syms)
        tshift, sshift = split_btf(elf, base_n, base_s, tshift, sshift, btf_types, btf_strs)
        print(f'{name} (not loaded): base {base:x} core {core:#x} text {text_size:#x} syms {len(syms)}', file=sys.stderr)
    lines.append('S ' + ' '.join(sysmod))
    with open(os.path.join(OUT, 'modules.gz'), 'wb') as f:
        f.write(gzip.compress(('\n'.join(lines) + '\n').encode('latin1'), 9, mtime=0))
    T, S = b''.join(btf_types), b''.join(btf_strs)
    hdr = struct.pack('<HBBIIIII', 0xeb9f, 1, 0, 24, 0, len(T), len(T), len(S))
    with open(os.path.join(OUT, 'modules.btf.gz'), 'wb') as f:
        f.write(gzip.compress(hdr + T + S, 9, mtime=0))
    print(f'modules: {len(mods)} loaded + {len(UNLOADED)} not loaded, {nsyms} symbols ({nlocs} with file:line), {nsites} mcount sites, '
          f'BTF {tshift - base_n} types', file=sys.stderr)


if __name__ == '__main__':
    main()
