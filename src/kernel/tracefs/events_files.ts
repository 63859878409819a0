/**
 * The events/ tree of an instance and the files that name events (kernel/trace/trace_events.c
 * of Linux 6.1): events/{enable,header_page,header_event}, events/SYSTEM/{enable,filter},
 * events/SYSTEM/EVENT/{enable,filter,format,hist,id,trigger} (ftrace's own events: format, hist,
 * id, and print's trigger), set_event with its `sys:event` / `sys:` / `*:event` / bare-name
 * grammar and `!`, and available_events (latest registered first).
 */
import { EINVAL, ENOENT } from '../errno';
import { TraceEvent, traceEvents, eventFormat } from '../tracepoint';
import { Dir, DynDir, File, PseudoNode, textFile, O_TRUNC } from './vfs';
import { EventFile } from './events';
import { FILTER_ERRORS } from './event_filter';
import { triggerText, triggerWrite, TriggerActions } from './event_trigger';
import { Instance } from './instance';

export const HEADER_PAGE = '\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n' +
  '\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n' +
  '\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n' +
  '\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n';
export const HEADER_EVENT = '# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n' +
  '\tpadding     : type == 29\n\ttime_extend : type == 30\n\ttime_stamp : type == 31\n\tdata max type_len  == 28\n';

const SYSTEM_FILTER_HELP = '### global filter ###\n# Use this to set filters for multiple events.\n' +
  '# Only events with the given fields will be affected.\n# If no events are modified, an error message will be displayed here\n';

/** Systems and their events (in registration order), made once. */
let systems: Map<string, TraceEvent[]> | null = null;
export function eventSystems(): Map<string, TraceEvent[]> {
  if (systems) return systems;
  systems = new Map();
  for (const ev of traceEvents()) {
    let l = systems.get(ev.system);
    if (!l) { l = []; systems.set(ev.system, l); }
    l.push(ev);
  }
  return systems;
}

/** system_enable_read() over files: "0" all off, "1" all on, "X" a mixture, "?" none */
function enableState(files: Iterable<EventFile>): string {
  let set = 0;
  for (const f of files) {
    set |= 1 << (f.enabled ? 1 : 0);
    if (set === 3) break;
  }
  return '?01X'[set] + '\n';
}

function enableWrite(files: () => Iterable<EventFile>): (t: string) => number {
  return (t) => {
    const v = t.trim();
    if (v !== '0' && v !== '1') return -EINVAL;
    for (const f of files()) f.enableDisable(v === '1');
    return t.length;
  };
}

/** __ftrace_set_clr_event(): 0 when at least one event matched, else -EINVAL. */
export function setClrEvent(inst: Instance, token: string, set: boolean): number {
  let match: string | null = token;
  let sub: string | null = null, event: string | null = null;
  const c = token.indexOf(':');
  if (c >= 0) {
    sub = token.slice(0, c); event = token.slice(c + 1); match = null;
    if (!sub || sub === '*') sub = null;
    if (!event || event === '*') event = null;
  }
  let ret = -EINVAL;
  for (const f of inst.eventFiles()) {
    const ev = f.ev;
    if (match !== null && match !== ev.name && match !== ev.system) continue;
    if (sub !== null && sub !== ev.system) continue;
    if (event !== null && event !== ev.name) continue;
    inst.expand();
    const r = f.enableDisable(set);
    ret = r;
  }
  return ret;
}

/** set_event */
export function setEventFile(inst: Instance): File {
  return new File(0o640, {
    show: () => inst.enabledFiles().map((f) => `${f.ev.system}:${f.ev.name}\n`).join(''),
    open: (flags) => {
      if (flags & O_TRUNC) for (const f of inst.eventFiles()) if (f.enabled) f.enableDisable(false);
      return 0;
    },
    write: (text) => {
      for (const tok of text.split(/\s+/)) {
        if (!tok) continue;
        const neg = tok.startsWith('!');
        const r = setClrEvent(inst, neg ? tok.slice(1) : tok, !neg);
        if (r < 0) return r;
      }
      return text.length;
    },
  });
}

/** available_events */
export function availableEventsFile(inst: Instance): PseudoNode {
  return textFile(() => {
    let s = '';
    for (const f of inst.eventFiles()) s += `${f.ev.system}:${f.ev.name}\n`;
    return s;
  }, 0o440);
}

/** events/SYSTEM/EVENT/ */
function eventDir(inst: Instance, ev: TraceEvent, act: TriggerActions): Dir {
  const d = new Dir(0o750);
  const f = () => inst.file(ev);
  if (ev.system !== 'ftrace') {
    d.add('enable', new File(0o640, {
      show: () => f().enableText(),
      write: (t) => {
        const v = t.trim();
        if (v !== '0' && v !== '1') return -EINVAL;
        inst.expand();
        const r = f().enableDisable(v === '1');
        return r < 0 ? r : t.length;
      },
    }));
  }
  if (ev.system !== 'ftrace' || ev.name === 'function') {
    d.add('filter', new File(0o640, {
      show: () => f().filterFileText(),
      write: (t) => { const r = f().setFilter(t); return r < 0 ? r : t.length; },
    }));
  }
  d.add('format', textFile(() => eventFormat(ev), 0o440));
  d.add('hist', textFile(() => histText(ev), 0o440));
  d.add('id', textFile(() => `${ev.id}\n`, 0o440));
  if (ev.system !== 'ftrace' || ev.name === 'print') {
    d.add('trigger', new File(0o640, {
      show: () => triggerText(f()),
      write: (t) => { const r = triggerWrite(f(), t, act); return r < 0 ? r : t.length; },
    }));
  }
  return d;
}

/** The hist file: hist_show() lists the event's hist triggers (none can be set here). */
function histText(_ev: TraceEvent): string {
  return '';
}

/** events/SYSTEM/ */
function systemDir(inst: Instance, sys: string, evs: TraceEvent[], act: TriggerActions): DynDir {
  const byName = new Map(evs.map((e) => [e.name, e]));
  const files = () => evs.map((e) => inst.file(e));
  let filterText: string | null = null;
  const extra = sys === 'ftrace' ? [] : ['enable', 'filter'];
  const dirs = new Map<string, PseudoNode>();
  return new DynDir(() => [...evs.map((e) => e.name), ...extra], (name) => {
    if (name === 'enable' && sys !== 'ftrace') {
      return new File(0o640, { show: () => enableState(files()), write: enableWrite(() => { inst.expand(); return files(); }) });
    }
    if (name === 'filter' && sys !== 'ftrace') {
      return new File(0o640, {
        show: () => filterText ?? SYSTEM_FILTER_HELP,
        write: (t) => {
          const text = t.replace(/\n$/, '');
          if (text.trim() === '0') { for (const x of files()) x.setFilter('0'); filterText = null; return t.length; }
          let ok = 0;
          for (const x of files()) {
            if (x.setFilter(text) === 0) ok++;
            else x.filterText = `${text}\n^\nparse_error: ${FILTER_ERRORS[11]}\n`;
          }
          if (!ok) { filterText = `${text}\n^\nparse_error: ${FILTER_ERRORS[11]}\n`; return -EINVAL; }
          return t.length;
        },
      });
    }
    const ev = byName.get(name);
    if (!ev) return null;
    let d = dirs.get(name);
    if (!d) { d = eventDir(inst, ev, act); dirs.set(name, d); }
    return d;
  }, 0o750);
}

/** events/ */
export function eventsDir(inst: Instance, act: TriggerActions, dynamic: () => Map<string, TraceEvent[]>): DynDir {
  const sysDirs = new Map<string, PseudoNode>();
  const all = () => {
    const m = new Map(eventSystems());
    for (const [k, v] of dynamic()) m.set(k, v);
    return m;
  };
  return new DynDir(() => [...all().keys(), 'enable', 'header_event', 'header_page'].sort(), (name) => {
    if (name === 'enable') {
      return new File(0o640, {
        show: () => enableState(inst.eventFiles()),
        write: enableWrite(() => { inst.expand(); return inst.eventFiles(); }),
      });
    }
    if (name === 'header_page') return textFile(() => HEADER_PAGE, 0o440);
    if (name === 'header_event') return textFile(() => HEADER_EVENT, 0o440);
    const evs = all().get(name);
    if (!evs) return null;
    const key = `${name}:${evs.length}:${evs[evs.length - 1]?.id}`;
    let d = sysDirs.get(key);
    if (!d) { d = systemDir(inst, name, evs, act); sysDirs.set(key, d); }
    return d;
  }, 0o750);
}

export { ENOENT };
