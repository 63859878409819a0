import { expect } from 'chai';
import {
  traceEvents, findEvent, eventFormat, tracepointProto, tracepoint, tracepointProbeRegister,
  tracepointProbeUnregister, traceCall, matchEvents, tracepointNames, resetTracepoints, eventById,
} from '../../src/kernel/tracepoint';
import { btfFindByName, btfMembers, BtfKind, btfSizeof } from '../../src/kernel/btf';
import { EEXIST, ENOENT } from '../../src/kernel/errno';

describe('tracepoints and trace events', () => {
  it('lays out every event as the kernel does and agrees with BTF trace_event_raw_* structs', () => {
    const evs = traceEvents();
    expect(evs.length).to.be.greaterThan(1000);
    let checkedAgainstBtf = 0;
    for (const ev of evs) {
      let end = 8;
      for (const f of ev.fields) {
        expect(f.offset, `${ev.system}/${ev.name}.${f.name}`).to.be.at.least(end);
        end = f.offset + f.size;
      }
      if (ev.system === 'syscalls' || ev.system === 'ftrace') continue;
      const ids = btfFindByName(`trace_event_raw_${ev.class}`, BtfKind.STRUCT);
      if (!ids.length) continue;
      const members = new Map(btfMembers(ids[0]).map((m) => [m.name, m]));
      for (const f of ev.fields) {
        const m = members.get(f.type.startsWith('__data_loc') ? `__data_loc_${f.name}` : f.name);
        expect(m, `${ev.name}.${f.name} in BTF`).to.not.equal(undefined);
        expect(m!.bitOffset / 8, `${ev.name}.${f.name} offset`).to.equal(f.offset);
        if (!f.type.startsWith('__data_loc')) expect(btfSizeof(m!.type), `${ev.name}.${f.name} size`).to.equal(f.size);
      }
      checkedAgainstBtf++;
    }
    expect(checkedAgainstBtf).to.be.greaterThan(500);
  });

  it('prints events/*/format like f_show()', () => {
    const ev = findEvent('sched', 'sched_switch')!;
    const fmt = eventFormat(ev);
    expect(fmt).to.match(new RegExp(`^name: sched_switch\nID: ${ev.id}\nformat:\n`));
    expect(fmt).to.include('\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n');
    expect(fmt).to.include('\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n');
    expect(fmt).to.include('\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n');
    expect(fmt).to.include('\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n');
    expect(fmt).to.include('\nprint fmt: "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s');
    const open = eventFormat(findEvent('syscalls', 'sys_enter_openat')!);
    expect(open).to.include('\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n');
    expect(open).to.include('\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n');
    expect(open).to.include('print fmt: "dfd: 0x%08lx, filename: 0x%08lx, flags: 0x%08lx, mode: 0x%08lx", ((unsigned long)(REC->dfd))');
    expect(findEvent('ftrace', 'function')!.id).to.equal(1);
  });

  it('numbers events uniquely in registration order', () => {
    const ids = traceEvents().map((e) => e.id);
    expect(new Set(ids).size).to.equal(ids.length);
    const dyn = traceEvents().filter((e) => e.system !== 'ftrace').map((e) => e.id);
    expect(dyn[0]).to.equal(20);
    for (let i = 1; i < dyn.length; i++) expect(dyn[i]).to.equal(dyn[i - 1] + 1);
    expect(eventById(findEvent('sched', 'sched_switch')!.id)!.name).to.equal('sched_switch');
  });

  it('gives TP_PROTO from BTF and matches event globs', () => {
    expect(tracepointProto('sched_switch')!.map((a) => `${a.type}|${a.name}`)).to.deep.equal(
      ['bool|preempt', 'struct task_struct *|prev', 'struct task_struct *|next', 'unsigned int|prev_state']);
    expect(tracepointProto('sys_enter')!.map((a) => a.name)).to.deep.equal(['regs', 'id']);
    expect(tracepointNames()).to.include('pelt_cfs_tp');
    expect(matchEvents('sched:sched_process_*').map((e) => e.name)).to.include('sched_process_exec');
  });

  it('keeps probe arrays like tracepoint_probe_register/unregister', () => {
    resetTracepoints();
    const calls: string[] = [];
    const f1 = (d: unknown, x: unknown) => { calls.push(`f1:${d}:${x}`); };
    const f2 = (d: unknown, x: unknown) => { calls.push(`f2:${d}:${x}`); };
    const tp = tracepoint('sched_switch')!;
    expect(tp.enabled).to.equal(false);
    expect(tracepointProbeRegister('sched_switch', f1, 'a')).to.equal(0);
    expect(tracepointProbeRegister('sched_switch', f1, 'a')).to.equal(-EEXIST);
    expect(tracepointProbeRegister('sched_switch', f2, 'b')).to.equal(0);
    expect(tracepointProbeRegister('sched_switch', f1, 'hi', 20)).to.equal(0);
    expect(tp.enabled).to.equal(true);
    traceCall(tp, 1);
    expect(calls).to.deep.equal(['f1:hi:1', 'f1:a:1', 'f2:b:1']);
    expect(tracepointProbeUnregister('sched_switch', f2, 'zz')).to.equal(-ENOENT);
    for (const [f, d] of [[f1, 'a'], [f2, 'b'], [f1, 'hi']] as const) expect(tracepointProbeUnregister('sched_switch', f, d)).to.equal(0);
    expect(tp.enabled).to.equal(false);
    expect(tp.regfuncCalls).to.equal(1);
    expect(tp.unregfuncCalls).to.equal(1);
    expect(tracepointProbeRegister('no_such_tp', f1, null)).to.equal(-ENOENT);
  });
});
