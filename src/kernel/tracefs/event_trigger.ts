/**
 * Event triggers (kernel/trace/trace_events_trigger.c of Linux 6.1): the `trigger` file of an
 * event takes `cmd[:count] [if filter]` (`!cmd...` removes it) for traceon, traceoff, snapshot,
 * stacktrace, enable_event:<sys>:<event> and disable_event:<sys>:<event>. A trigger puts its
 * event in soft mode (its enable file reads "0*" when the event itself is off); the counted
 * forms decrement only when they act; a trigger with a filter runs only for records matching it.
 */
import { CpuContext } from '../current';
import { EINVAL, ENOENT, EEXIST } from '../errno';
import { COMMON_FIELDS } from '../tracepoint';
import { EventFilter, FilterField, parseFilter } from './event_filter';
import { EventFile, EventTrigger, eventLayout, filterRec } from './events';
import { RecView } from './trace_output';

export const TRIGGER_CMDS = ['traceon', 'traceoff', 'snapshot', 'stacktrace', 'enable_event', 'disable_event'];

/** What triggers act on. */
export interface TriggerActions {
  findEvent(file: EventFile, sys: string, name: string): EventFile | null;
  /** a kernel_stack record; `from` is the event's probe (trace_event_raw_event_<class>) */
  stack(ctx: CpuContext, from?: string): void;
  snapshot(): void;
}

export const TRIGGER_HELP = '# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n';

/** The trigger file's contents. */
export function triggerText(f: EventFile): string {
  if (!f.triggers.length) return TRIGGER_HELP;
  let s = '';
  for (const t of f.triggers) {
    let name = t.cmd;
    if (t.targetName) name += ':' + t.targetName;
    s += name + (t.count === -1 ? ':unlimited' : `:count=${t.count}`) + (t.filterText ? ` if ${t.filterText}\n` : '\n');
  }
  return s;
}

/** One write to a trigger file (each line a command); 0 or -errno. */
export function triggerWrite(f: EventFile, text: string, act: TriggerActions): number {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const r = triggerCommand(f, line, act);
    if (r < 0) return r;
  }
  return 0;
}

function triggerCommand(f: EventFile, line: string, act: TriggerActions): number {
  let remove = false;
  if (line.startsWith('!')) { remove = true; line = line.slice(1); }
  const m = /^(\S+?)(?:\s+if\s+(.*))?$/.exec(line);
  if (!m) return -EINVAL;
  const parts = m[1].split(':');
  const cmd = parts[0];
  if (!TRIGGER_CMDS.includes(cmd)) return -EINVAL;
  let targetName: string | undefined;
  let target: EventFile | null = null;
  let rest = parts.slice(1);
  if (cmd === 'enable_event' || cmd === 'disable_event') {
    if (rest.length < 2) return -EINVAL;
    targetName = `${rest[0]}:${rest[1]}`;
    target = act.findEvent(f, rest[0], rest[1]);
    if (!target) return -EINVAL;
    rest = rest.slice(2);
  }
  let count = -1;
  if (rest.length) {
    if (!/^\d+$/.test(rest[0])) return -EINVAL;
    count = Number(rest[0]);
  }
  const filterText = m[2] ?? '';
  const existing = f.triggers.findIndex((t) => t.cmd === cmd && t.targetName === targetName);
  if (remove) {
    if (existing < 0) return -ENOENT;
    const t = f.triggers[existing];
    f.triggers.splice(existing, 1);
    if (t.target) t.target.enableDisable(false, true);
    f.enableDisable(false, true);
    return 0;
  }
  if (existing >= 0) return -EEXIST;
  let filter: EventFilter | null = null;
  if (filterText) {
    const byName = new Map(eventLayout(f.ev).map((x) => [x.name, x as FilterField]));
    const r = parseFilter(filterText, (n) => byName.get(n) ?? null);
    if (!(r instanceof EventFilter)) return -EINVAL;
    filter = r;
  }
  if (target) { const r = target.enableDisable(true, true); if (r < 0) return r; }
  f.triggers.push({ cmd, count, filter, filterText, target: target ?? undefined, targetName });
  return f.enableDisable(true, true);
}

/** event_triggers_call(): run the triggers of a hit (rec null: the event is soft-disabled). */
export function runTriggers(f: EventFile, rec: RecView | null, ctx: CpuContext, act: TriggerActions): void {
  for (const t of f.triggers) {
    if (t.filter) {
      if (!rec || !t.filter.match(filterRec(rec, ctx))) continue;
    }
    if (t.count === 0) continue;
    let acted = true;
    switch (t.cmd) {
      case 'traceon': acted = !f.tr.tracingOn; if (acted) f.tr.tracingOn = true; break;
      case 'traceoff': acted = f.tr.tracingOn; if (acted) f.tr.tracingOn = false; break;
      case 'stacktrace': act.stack(ctx, f.ev.tracepoint ? `trace_event_raw_event_${f.ev.class}` : undefined); break;
      case 'snapshot': act.snapshot(); break;
      case 'enable_event': case 'disable_event':
        if (t.target) {
          const on = t.cmd === 'enable_event';
          const was = (t.target.flags & 4) === 0;
          if (on) t.target.flags &= ~4; else t.target.flags |= 4;
          acted = was !== on;
        }
        break;
    }
    if (acted && t.count > 0) t.count--;
  }
}

/** the common fields, for callers building filters over them */
export const COMMON_FIELD_NAMES = COMMON_FIELDS.map((f) => f.name);
