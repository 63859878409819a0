#!/usr/bin/env python3
"""Call sites inside the functions the machine model runs: where each call returns to.

Usage: callsites.py WORKDIR OUTDIR MODEL_FUNCS   (after modules.py; binutils objdump, python3)
  WORKDIR      fetch.sh's work directory (vmlinux = the -dbg vmlinux; img/ the image's .ko files)
  MODEL_FUNCS  the functions the machine model runs, one per line (node dist/scripts/model-functions.js)

A backtrace frame of a caller is the return address of its call: the instruction after the
`call`. `objdump -d` of vmlinux (and `objdump -dr` of the modules the guest loads, whose calls are
relocations) gives every call instruction of the model functions with its target: a function
(direct calls, `__SCT__*` static-call trampolines) or `*` for an indirect call (through a register
or a `__x86_indirect_thunk_*` retpoline). Assembly counts too: entry_SYSCALL_64's call of
do_syscall_64 returns to entry_SYSCALL_64_after_hwframe+0x63.

Writes OUTDIR/callsites.gz: `F caller_symbol [module]` then one `offset_hex target` per call, in
address order (offset from the caller's symbol to the return address).
"""
import gzip, io, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

work, outdir, model = sys.argv[1:4]
names = set(open(model).read().split())
head_re = re.compile(r'^([0-9a-f]+) <([^>]+)>:$')
insn_re = re.compile(r'^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$')
reloc_re = re.compile(r'^\s*[0-9a-f]+: R_X86_64_(?:PLT32|PC32)\s+(\S+?)(?:[+-]0x[0-9a-f]+)?$')
THUNK = re.compile(r'^__x86_indirect_thunk_|^__x86_indirect_call_thunk_')


def target_of(operands, reloc=None):
    if reloc:
        return '*' if THUNK.match(reloc) else reloc
    if operands.startswith('*'):
        return '*'
    m = re.search(r'<([^>+]+)(\+0x[0-9a-f]+)?>', operands)
    if not m:
        return '*'
    t = m.group(1)
    return '*' if THUNK.match(t) else t


def scan(cmd, wanted, out, relocatable=False):
    """out[function] = [(return offset, target)] for the wanted functions of an objdump listing."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1 << 20)
    cur = None
    base = 0
    pending = None   # a call whose return address is the next instruction's
    for line in p.stdout:
        m = head_re.match(line)
        if m and cur is not None and m.group(2).startswith(cur + '_') and m.group(2) not in wanted:
            continue   # a label inside an assembly function (entry_SYSCALL_64_after_hwframe)
        if m:
            if pending and cur is not None:
                # a call ending a function (noreturn) "returns" to the next symbol
                out[cur].append((int(m.group(1), 16) - base, pending[1]))
            pending = None
            name = m.group(2)
            cur = name if name in wanted and name not in out else None
            if cur is not None:
                out[cur] = []
                base = int(m.group(1), 16)
            continue
        if cur is None:
            continue
        m = insn_re.match(line)
        if m and not m.group(2).startswith('R_X86'):
            addr = int(m.group(1), 16)
            if pending:
                out[cur].append((addr - base, pending[1]))
                pending = None
            if m.group(2) == 'call':
                pending = (None, target_of(m.group(3)))
            continue
        r = reloc_re.match(line)
        if r and pending and relocatable:
            pending = (None, target_of('', r.group(1)))
    p.wait()


def main():
    rows = {}
    scan(['objdump', '-d', '--no-show-raw-insn', os.path.join(work, 'vmlinux')], names, rows)
    mods = {}
    from modules import read_snapshot, ko_paths, KDIR, SNAPSHOT
    snap, _k, _m = read_snapshot(SNAPSHOT)
    paths = ko_paths()
    for m in reversed(snap):
        r = {}
        scan(['objdump', '-dr', '--no-show-raw-insn', os.path.join(KDIR, paths[m['name']] + '.ko')], names, r, True)
        mods[m['name']] = r
    buf = io.StringIO()
    n = 0
    for name in sorted(rows):
        buf.write(f'F\t{name}\n')
        for off, t in rows[name]:
            buf.write(f'{off:x}\t{t}\n')
            n += 1
    for mod, r in mods.items():
        for name in sorted(r):
            buf.write(f'F\t{name}\t{mod}\n')
            for off, t in r[name]:
                buf.write(f'{off:x}\t{t}\n')
                n += 1
    with open(os.path.join(outdir, 'callsites.gz'), 'wb') as f:
        with gzip.GzipFile(fileobj=f, mode='wb', mtime=0, filename='') as g:
            g.write(buf.getvalue().encode())
    print(f'callsites.gz: {len(rows) + sum(len(r) for r in mods.values())} functions, {n} calls', file=sys.stderr)


main()
