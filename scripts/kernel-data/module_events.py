#!/usr/bin/env python3
"""Trace events of the loaded modules (scsi_mod, libata, jbd2, ext4: Debian builds them as modules,
CONFIG_SCSI=m, CONFIG_ATA=m, CONFIG_JBD2=m, CONFIG_EXT4_FS=m), which gen.py's vmlinux
_ftrace_events section does not hold.

Usage: module_events.py WORKDIR OUTDIR   (python3 standard library only)

Inputs:
  OUTDIR/module_events.snapshot.gz            the real guest's tracefs (module-events.sh under
                                              ../shared/tools/qemu-debian-guest): per module event its
                                              id and `format` file (fields with offset, size, signed;
                                              print fmt), available_events, every event's id (checked
                                              against gen.py's events.json.gz), /proc/modules
  WORKDIR/img/lib/modules/<abi>/kernel/**.ko  the image package's modules (fetch.sh; the guest boots
                                              the same package): each module's _ftrace_events section
                                              (section order), per `struct trace_event_call` its class
                                              (`event_class_<template>`, the relocation of ->class) and
                                              flags, and its `__tracepoint_*` symbols
Output:
  OUTDIR/module_events.json.gz  {"modules": [[module, [event index...]] in load order],
                                 "events": [...as events.json.gz, plus "module"],
                                 "tracepoints": [every module __tracepoint_ name]}
Events are in registration order: modules in load order (the reverse of /proc/modules), each one's
events in its _ftrace_events order (trace_module_add_events() -> __register_event()); their ids are
the guest's (register_trace_event() continues after vmlinux's last id, in that order).
"""
import gzip, json, os, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from modules import Elf  # noqa: E402

WORK, OUT = sys.argv[1], sys.argv[2]
ABI = '6.1.0-56-amd64'
KDIR = os.path.join(WORK, 'img/lib/modules', ABI, 'kernel')
KO = {'scsi_mod': 'drivers/scsi/scsi_mod', 'libata': 'drivers/ata/libata', 'jbd2': 'fs/jbd2/jbd2', 'ext4': 'fs/ext4/ext4'}
STT_OBJECT, STT_SECTION = 1, 3


def read_snapshot(path):
    """section name -> lines (`== NAME` headers)"""
    out, cur = {}, None
    for line in gzip.open(path, 'rt', encoding='utf-8', errors='replace').read().split('\n'):
        if line.startswith('== '):
            cur = line[3:]
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out


def parse_format(lines):
    """fields after the common ones, print fmt, as event_define_fields() printed them"""
    fields, fmt, common = [], None, True
    for ln in lines:
        if fmt is not None:
            fmt.append(ln)   # a print fmt with a newline in its string (ext4_fc_stats) goes on
            continue
        ln = ln.strip()
        if ln.startswith('print fmt: '):
            fmt = [ln[len('print fmt: '):]]
        elif ln.startswith('field:'):
            decl, off, size, signed = [p.split(':', 1)[1] if ':' in p else p for p in ln.split(';')[:4]]
            if common:
                if decl.endswith('common_pid'):
                    common = False
                continue
            decl = decl.strip()
            # 'char comm[16]' -> type char[16], len 16; '__data_loc char[] name' -> as is, len 0
            typ, name = decl.rsplit(' ', 1)
            flen = 0
            if name.endswith(']'):
                b = name.index('[')
                dim = name[b + 1:-1]
                name = name[:b]
                typ = f'{typ}[{dim}]'
                flen = int(dim) if dim.isdigit() else 0
            fields.append([typ, name, int(off), int(size), int(signed), flen])
    return fields, '\n'.join(fmt or []).rstrip('\n')


def ko_events(mod):
    """[(event name, class template, flags)] in _ftrace_events order; the module's tracepoint names"""
    e = Elf(os.path.join(KDIR, KO[mod] + '.ko'))
    syms = e.symbols()

    def relas(name):
        s = e.sh[e.byname[name]]
        return [struct.unpack_from('<QQq', e.d, s['off'] + i * 24) for i in range(s['size'] // 24)]

    at = {}
    for s in syms:
        if s['type'] == STT_OBJECT:
            at.setdefault((s['shndx'], s['value']), s['name'])

    def target(info, add):
        s = syms[info >> 32]
        if s['type'] == STT_SECTION or not s['name']:
            return at.get((s['shndx'], s['value'] + add), '')
        return s['name']

    data_idx = e.byname['.data']
    data = e.data('.data')
    rela_data = {off: (info, add) for off, info, add in relas('.rela.data')}
    out = []
    for off, info, add in sorted(relas('.rela_ftrace_events')):
        call = target(info, add)
        s = next(x for x in syms if x['name'] == call and x['shndx'] == data_idx)
        cls = target(*rela_data[s['value'] + 16])
        flags, = struct.unpack_from('<i', data, s['value'] + 112)
        out.append((call[len('event_'):], cls[len('event_class_'):], flags))
    tps = sorted(s['name'][len('__tracepoint_'):] for s in syms if s['name'].startswith('__tracepoint_') and s['type'] == STT_OBJECT)
    return out, tps


def main():
    snap = read_snapshot(os.path.join(OUT, 'module_events.snapshot.gz'))
    loaded = [ln.split()[0] for ln in snap['lsmod'] if ln.strip()][::-1]
    formats = {}
    formats_keys = set()
    for key, lines in snap.items():
        if key.startswith('event '):
            _, system, name, eid = key.split()
            fields, fmt = parse_format(lines)
            formats[name] = (system, int(eid), fields, fmt)
            formats_keys.add(f'{system}:{name}')
    events, tracepoints, mods = [], [], []
    for mod in loaded:
        if mod not in KO:
            continue
        evs, tps = ko_events(mod)
        tracepoints += tps
        idx = []
        for name, cls, flags in evs:
            system, eid, fields, fmt = formats[name]
            idx.append(len(events))
            events.append({'system': system, 'name': name, 'class': cls, 'fields': fields, 'fmt': fmt, 'flags': flags,
                           'id': eid, 'module': mod})
        mods.append([mod, idx])
    # every recorded event is accounted for, ids ascend in registration order as register_trace_event() gives them
    assert sorted(e['name'] for e in events) == sorted(formats), set(formats) ^ {e['name'] for e in events}
    ids = [e['id'] for e in events]
    assert ids == sorted(ids) and len(set(ids)) == len(ids), 'ids out of registration order'
    # available_events lists the latest registered first: modules' events before vmlinux's, reversed
    avail = [ln for ln in snap['available_events'] if ln]
    assert avail[:len(events)] == [f"{e['system']}:{e['name']}" for e in reversed(events)], 'available_events order differs'
    # the guest's ids of vmlinux's events are the ones gen.py assigned (events.json.gz)
    core = json.load(gzip.open(os.path.join(OUT, 'events.json.gz')))
    ours = {f"{e['system']}:{e['name']}": e['id'] for e in core['events'] if e['id'] > 0}
    for ln in snap.get('ids', []):
        if ln.strip():
            eid, key = ln.split()
            assert key in formats_keys or ours.get(key) == int(eid), f'{key}: guest id {eid}, events.json.gz {ours.get(key)}'
    blob = json.dumps({'modules': mods, 'events': events, 'tracepoints': sorted(tracepoints)}, separators=(',', ':')).encode()
    with open(os.path.join(OUT, 'module_events.json.gz'), 'wb') as f:
        with gzip.GzipFile(fileobj=f, mode='wb', mtime=0, compresslevel=9, filename='') as g:
            g.write(blob)
    print(f'module events: {len(events)} ({", ".join(f"{m} {len(i)}" for m, i in mods)}); ids {ids[0]}..{ids[-1]}', file=sys.stderr)


if __name__ == '__main__':
    main()
