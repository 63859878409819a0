#!/usr/bin/env python3
"""Generate tapsim's committed kernel data (data/kernel/) from Debian's Linux 6.1 artefacts.

Usage: gen.py WORKDIR OUTDIR
WORKDIR must contain (see fetch.sh):
  vmlinux            unstripped vmlinux from linux-image-<rel>-dbg  (symbols, .BTF, data sections)
  System.map         the dbg package's System.map                  (kallsyms: address, type, name)
  config             /boot/config-<rel> from linux-image-<rel>-unsigned
  dwarf_funcs.tsv    output of dwarf_funcs.py over llvm-dwarfdump   (file:line, inline)
  linux-source/      unpacked linux-source-6.1 tree                (syscall_64.tbl)
Python 3 standard library only.
"""
import gzip, json, os, re, struct, sys, bisect

WORK, OUT = sys.argv[1], sys.argv[2]
os.makedirs(OUT, exist_ok=True)


def wgz(name, text):
    data = text.encode('utf-8')
    with open(os.path.join(OUT, name), 'wb') as f:
        # mtime=0 keeps the output byte-identical between runs
        f.write(gzip.compress(data, 9, mtime=0))
    print(f'{name}: {len(data)} bytes raw', file=sys.stderr)


# ---------------------------------------------------------------- ELF reader
class Elf:
    def __init__(self, path):
        self.f = open(path, 'rb')
        hdr = self.f.read(64)
        assert hdr[:4] == b'\x7fELF' and hdr[4] == 2
        (shoff,) = struct.unpack_from('<Q', hdr, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from('<HHH', hdr, 0x3A)
        self.f.seek(shoff)
        raw = self.f.read(shentsize * shnum)
        secs = []
        for i in range(shnum):
            name, typ, flags, addr, off, size = struct.unpack_from('<IIQQQQ', raw, i * shentsize)
            secs.append([name, typ, flags, addr, off, size])
        strtab = secs[shstrndx]
        self.f.seek(strtab[4])
        names = self.f.read(strtab[5])
        self.sections = []
        for s in secs:
            n = names[s[0]:names.index(b'\0', s[0])].decode()
            self.sections.append({'name': n, 'type': s[1], 'flags': s[2], 'addr': s[3], 'off': s[4], 'size': s[5]})

    def section(self, name):
        for s in self.sections:
            if s['name'] == name:
                return s
        raise KeyError(name)

    def read_section(self, name):
        s = self.section(name)
        self.f.seek(s['off'])
        return self.f.read(s['size'])

    def read(self, addr, n):
        for s in self.sections:
            if s['addr'] and s['addr'] <= addr and addr + n <= s['addr'] + s['size'] and s['flags'] & 2:
                if s['type'] == 8:  # NOBITS
                    return b'\0' * n
                self.f.seek(s['off'] + addr - s['addr'])
                return self.f.read(n)
        raise ValueError(f'address {addr:#x} not in a loaded section')

    def u64(self, addr):
        return struct.unpack('<Q', self.read(addr, 8))[0]

    def i32(self, addr):
        return struct.unpack('<i', self.read(addr, 4))[0]

    def cstr(self, addr):
        out = b''
        while True:
            chunk = self.read(addr, 1)
            if chunk == b'\0':
                return out.decode('latin1')
            out += chunk
            addr += 1


elf = Elf(os.path.join(WORK, 'vmlinux'))

# ---------------------------------------------------------------- config
cfg_lines = []
with open(os.path.join(WORK, 'config'), encoding='latin1') as f:
    for line in f:
        line = line.rstrip('\n')
        if line.startswith('CONFIG_'):
            cfg_lines.append(line)
with open(os.path.join(OUT, 'config.txt'), 'w', encoding='latin1') as f:
    f.write('\n'.join(cfg_lines) + '\n')

# ---------------------------------------------------------------- kallsyms
syms = []  # (addr, type, name)
with open(os.path.join(WORK, 'System.map')) as f:
    for line in f:
        a, t, n = line.split()
        syms.append((int(a, 16), t, n))
by_name = {}
for i, (a, t, n) in enumerate(syms):
    by_name.setdefault(n, []).append(i)
addrs = [s[0] for s in syms]


def sym_addr(name):
    return syms[by_name[name][0]][0]


text_idx = [i for i, s in enumerate(syms) if s[1] in 'TtWw']
text_addrs = [syms[i][0] for i in text_idx]


def text_sym_at(addr):
    """index of the text symbol containing addr (last symbol with address <= addr)"""
    k = bisect.bisect_right(text_addrs, addr) - 1
    if k < 0:
        return None
    a = text_addrs[k]
    # prefer the first of several aliases at the same address
    while k > 0 and text_addrs[k - 1] == a:
        k -= 1
    return text_idx[k]


lines = []
prev = 0
for a, t, n in syms:
    lines.append(f'{a - prev:x} {t} {n}')
    prev = a
wgz('kallsyms.gz', '\n'.join(lines) + '\n')

# ---------------------------------------------------------------- mcount sites (dyn_ftrace records)
start, stop = sym_addr('__start_mcount_loc'), sym_addr('__stop_mcount_loc')
raw = elf.read(start, stop - start)
sites = sorted(struct.unpack_from(f'<{len(raw) // 8}Q', raw))
sinit, einit = sym_addr('_sinittext'), sym_addr('_einittext')
site_off = {}   # symbol index -> offset of the fentry call
odd = []
init_sites = 0
for ip in sites:
    if ip == 0:
        continue
    if sinit <= ip < einit:
        init_sites += 1   # freed after boot by ftrace_free_init_mem()
        continue
    si = text_sym_at(ip)
    off = ip - syms[si][0]
    if off != 0:
        odd.append((ip, si, off))
    site_off.setdefault(si, off)
print(f'mcount: {len(sites)} sites, {init_sites} in .init.text, {len(odd)} not at symbol start', file=sys.stderr)
# mcount.gz: the dyn_ftrace record ips that survive boot (init text freed), ascending, delta-encoded hex
rec_lines = []
prev = 0
for ip in sites:
    if ip == 0 or sinit <= ip < einit:
        continue
    rec_lines.append(f'{ip - prev:x}')
    prev = ip
wgz('mcount.gz', '\n'.join(rec_lines) + '\n')

# ---------------------------------------------------------------- kprobe blacklist (order as populate_kprobe_blacklist builds it)
def ksym_range(addr):
    """kallsyms_lookup_size_offset: symbol start and size up to the next higher address"""
    k = bisect.bisect_right(addrs, addr) - 1
    a = addrs[k]
    j = k
    while j + 1 < len(addrs) and addrs[j + 1] == a:
        j += 1
    nxt = addrs[j + 1] if j + 1 < len(addrs) else a
    first = k
    while first > 0 and addrs[first - 1] == a:
        first -= 1
    return first, a, nxt - a


def is_text(addr):
    return sym_addr('_stext') <= addr < sym_addr('_etext') or sinit <= addr < einit


blacklist = []
start, stop = sym_addr('__start_kprobe_blacklist'), sym_addr('__stop_kprobe_blacklist')
raw = elf.read(start, stop - start)
for ent in struct.unpack_from(f'<{len(raw) // 8}Q', raw):
    if not is_text(ent):
        continue
    si, a, size = ksym_range(ent)
    blacklist.append((ent, ent + size, syms[si][2]))


def area(s, e):
    ent = s
    while ent < e:
        si, a, size = ksym_range(ent)
        blacklist.append((ent, ent + size, syms[si][2]))
        ent += size if size else 1


area(sym_addr('__kprobes_text_start'), sym_addr('__kprobes_text_end'))
area(sym_addr('__noinstr_text_start'), sym_addr('__noinstr_text_end'))
area(sym_addr('__entry_text_start'), sym_addr('__entry_text_end'))
with open(os.path.join(OUT, 'kprobe_blacklist.txt'), 'w') as f:
    for s, e, n in blacklist:
        f.write(f'{s:x} {e:x} {n}\n')

# ---------------------------------------------------------------- DWARF: file:line, inline
dies = {}
concrete = []
with open(os.path.join(WORK, 'dwarf_funcs.tsv')) as f:
    for line in f:
        off, name, file, ln, inl, low, flags, origin = line.rstrip('\n').split('\t')
        dies[off] = (name, file, ln, inl, origin)
        if low:
            concrete.append((int(low, 16), off))


def resolve(off, depth=0):
    name, file, ln, inl, origin = dies[off]
    if (not name or not file) and origin and origin in dies and depth < 4:
        n2, f2, l2, i2 = resolve(origin, depth + 1)
        return name or n2, file or f2, ln or l2, inl or i2
    return name, file, ln, inl


addr_info = {}
for low, off in concrete:
    addr_info.setdefault(low, resolve(off))

inline_set = {}
for off, (name, file, ln, inl, origin) in dies.items():
    if inl and name and file and not origin:
        inline_set[(name, file, int(ln or 0))] = True

# funcs.gz: one line per text symbol with debug info or an ftrace site
# <symidx>\t<file>\t<line>\t<flags>  flags: i (first) = declared inline (this is an out-of-line copy);
# a<name> = DWARF name differs from the symbol
files = {}
out = []
for i in text_idx:
    a, t, n = syms[i]
    info = addr_info.get(a)
    fl = ''
    file, ln = '', ''
    if info:
        dname, file, ln, inl = info
        base = n.split('.')[0]
        if inl:
            fl += 'i'
        if dname and dname != base and dname != n:
            # address shared by an alias whose DWARF name differs: keep the DWARF name for reference
            fl += f'a{dname}'
    if not file and not fl:
        continue
    out.append(f'{i}\t{file}\t{ln}\t{fl}')
wgz('funcs.gz', '\n'.join(out) + '\n')

inl_lines = sorted(f'{n}\t{f}\t{l}' for (n, f, l) in inline_set)
wgz('inlines.gz', '\n'.join(inl_lines) + '\n')

# ---------------------------------------------------------------- BTF
btf = elf.read_section('.BTF')
with open(os.path.join(OUT, 'vmlinux.btf.gz'), 'wb') as f:
    f.write(gzip.compress(btf, 9, mtime=0))

# ---------------------------------------------------------------- syscalls
tbl = []
with open(os.path.join(WORK, 'linux-source', 'arch/x86/entry/syscalls/syscall_64.tbl')) as f:
    for line in f:
        line = line.split('#')[0].strip()
        if not line:
            continue
        parts = line.split()
        nr, abi, name = int(parts[0]), parts[1], parts[2]
        entry = parts[3] if len(parts) > 3 else ''
        tbl.append((nr, abi, name, entry))

# syscall metadata (__syscalls_metadata section): name, nb_args, types, args
meta = []
start, stop = sym_addr('__start_syscalls_metadata'), sym_addr('__stop_syscalls_metadata')
raw = elf.read(start, stop - start)
meta_ptrs = struct.unpack_from(f'<{len(raw) // 8}Q', raw)
meta_by_addr = {}
for p in meta_ptrs:
    name = elf.cstr(elf.u64(p))
    nb = elf.i32(p + 12)
    types_p, args_p = elf.u64(p + 16), elf.u64(p + 24)
    types = [elf.cstr(elf.u64(types_p + 8 * k)) for k in range(nb)] if nb > 0 else []
    args = [elf.cstr(elf.u64(args_p + 8 * k)) for k in range(nb)] if nb > 0 else []
    m = {'name': name, 'nb': nb, 'types': types, 'args': args, 'nr': -1,
         'enter': elf.u64(p + 48), 'exit': elf.u64(p + 56)}
    meta.append(m)
    meta_by_addr[p] = m

# init_ftrace_syscalls(): map sys_call_table[i] through kallsyms to its metadata
sct = sym_addr('sys_call_table')
NR = 0
while True:
    k = bisect.bisect_right(addrs, sct + 8 * NR) - 1
    if NR and syms[k][2] != 'sys_call_table':
        break
    NR += 1
    if NR > 1024:
        break


def match(sym, name):
    return (sym[3:] == name[3:] or (sym.startswith('__x64_') and sym[9:] == name[3:]) or
            (sym.startswith('__ia32_') and sym[10:] == name[3:]) or
            (sym.startswith('__do_sys') and sym[8:] == name[3:]))


def find_meta(addr):
    si = text_sym_at(addr)
    if si is None or syms[si][0] != addr:
        return None
    s = syms[si][2]
    # find_syscall_meta() gives the unimplemented slots (sys_ni_syscall) no metadata, so the
    # sys_enter/exit_ni_syscall events stay unmapped and init_syscall_trace disables them (the guest's
    # tracefs has no events/syscalls/sys_enter_ni_syscall; ids after them are 2 lower)
    if match(s, 'sys_ni_syscall'):
        return None
    # kallsyms_lookup returns one name for the address; aliases share it
    for m in meta:
        if match(s, m['name']):
            return m
    return None


table = []
for i in range(NR):
    addr = elf.u64(sct + 8 * i)
    si = text_sym_at(addr)
    table.append(syms[si][2] if si is not None else '')
    m = find_meta(addr)
    if m:
        m['nr'] = i
sc_lines = []
meta_by_name = {m['name']: m for m in meta}
for nr, abi, name, entry in tbl:
    m = meta_by_name.get('sys_' + name)
    args = ''
    if m:
        args = ','.join(f'{t}:{a}' for t, a in zip(m['types'], m['args']))
    sc_lines.append(f'{nr}\t{abi}\t{name}\t{entry}\t{table[nr] if nr < len(table) else ""}\t{"" if not m else m["nb"]}\t{args}')
with open(os.path.join(OUT, 'syscalls.tsv'), 'w') as f:
    f.write(f'# NR_syscalls {NR}\n# nr\tabi\tname\tentry(tbl)\tsys_call_table symbol\tnb_args\ttype:arg,...\n')
    f.write('\n'.join(sc_lines) + '\n')

# ---------------------------------------------------------------- trace events (_ftrace_events section)
TRACE_FUNCTION_TYPE = 0xffffffffffffffff
TRACE_EVENT_FL_TRACEPOINT = 1 << 4
start, stop = sym_addr('__start_ftrace_events'), sym_addr('__stop_ftrace_events')
raw = elf.read(start, stop - start)
calls = struct.unpack_from(f'<{len(raw) // 8}Q', raw)


def symname(addr):
    if addr == 0:
        return ''
    k = bisect.bisect_right(addrs, addr) - 1
    if k >= 0 and addrs[k] == addr:
        while k > 0 and addrs[k - 1] == addr:
            k -= 1
        return syms[k][2]
    return f'{addr:#x}'


next_type = 20  # __TRACE_LAST_TYPE in 6.1 kernel/trace/trace.h
events = []
raw_inits = {}
for c in calls:
    cls = elf.u64(c + 16)
    flags = elf.i32(c + 112)
    u = elf.u64(c + 24)
    name = elf.cstr(elf.u64(u)) if flags & TRACE_EVENT_FL_TRACEPOINT else elf.cstr(u)
    system = elf.cstr(elf.u64(cls))
    clsname = symname(cls)
    template = clsname[len('event_class_'):] if clsname.startswith('event_class_') else clsname
    preset_type = elf.i32(c + 32 + 32)
    pf = elf.u64(c + 80)
    print_fmt = elf.cstr(pf) if pf else ''
    raw_init = symname(elf.u64(cls + 64))
    raw_inits[raw_init] = raw_inits.get(raw_init, 0) + 1
    fields = []
    fa = elf.u64(cls + 32)
    offset = 8
    while fa:
        tp = elf.u64(fa)
        if tp == 0:
            break
        if tp == TRACE_FUNCTION_TYPE:
            df = symname(elf.u64(fa + 8))
            m = meta_by_addr.get(elf.u64(c + 104))
            if df == 'syscall_enter_define_fields' and m:
                off = 16
                for t, a in zip(m['types'], m['args']):
                    fields.append([t, a, off, 8, 0, 0])
                    off += 8
            else:
                fields.append(['?define_fields', df, 0, 0, 0, 0])
            break
        fname = elf.cstr(elf.u64(fa + 8))
        size, align, signed, ftype, flen = (elf.i32(fa + 16), elf.i32(fa + 20), elf.i32(fa + 24),
                                            elf.i32(fa + 28), elf.i32(fa + 32))
        offset = (offset + align - 1) // align * align if align > 0 else offset
        fields.append([elf.cstr(tp), fname, offset, size, 1 if signed else 0, flen])
        offset += size
        fa += 40
    ev = {'system': system, 'name': name, 'class': template, 'fields': fields, 'fmt': print_fmt,
          'flags': flags}
    # event ids, as event_trace_enable() -> event_init() -> raw_init -> register_trace_event() assigns them
    ok = True
    if raw_init == 'init_syscall_trace':
        m = meta_by_addr.get(elf.u64(c + 104))
        if not m or m['nr'] < 0 or m['nr'] >= NR:
            ok = False
        else:
            ev['nr'] = m['nr']
            if m['enter'] == c:
                ev['fmt'] = '"' + ', '.join(f'{a}: 0x%08lx' for a in m['args']) + '"' + \
                    ''.join(f', ((unsigned long)(REC->{a}))' for a in m['args'])
            else:
                ev['fmt'] = '"0x%lx", REC->ret'
    if not ok:
        ev['id'] = 0  # metadata not mapped: event disabled at boot, not listed
    elif raw_init in ('trace_event_raw_init', 'init_syscall_trace'):
        ev['id'] = next_type
        next_type += 1
    elif raw_init == '':
        ev['id'] = preset_type
    else:
        ev['id'] = -1
        print(f'warning: unknown raw_init {raw_init} for {system}/{name}', file=sys.stderr)
    events.append(ev)
print(f'events: {len(events)}; raw_init kinds {raw_inits}; last id {next_type - 1}', file=sys.stderr)

# tracepoints (struct tracepoint __tracepoint_<name>) incl. DECLARE_TRACE-only ones
tps = sorted(n[len('__tracepoint_'):] for n in by_name if n.startswith('__tracepoint_') and
             syms[by_name[n][0]][1] in 'Dd')
wgz('events.json.gz', json.dumps({'events': events, 'tracepoints': tps}, separators=(',', ':')))
print('done', file=sys.stderr)
