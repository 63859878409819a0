/**
 * The trace event table's compact form: data/kernel/events.json.gz rewritten as one header line
 * (tracepoint names; per event its system, name, id, flags and where its details are) followed
 * by each event's details (class, fields, print format, syscall number) as its own JSON text.
 * A start reads the header only; an event's object is made when it is first asked for (exact
 * system:name lookups binary-search an index in the header), its details parsed when one of
 * them is first used (TraceEvent objects from here have them as getters).  `npm run build` writes it to
 * dist/kernel-tables/ (scripts/build-kernel-tables.ts); without it (or with data newer than
 * it) the gzipped JSON is parsed and the table written to the cache directory.
 */
import * as fs from 'fs';
import * as path from 'path';
import { kernelDataDir, dataFilesStamp, readDataText, openDerivedTable, wholeFile, writeDerivedTable } from './data';
import { cacheFile } from '../cachedir';

export interface TraceEventField {
  type: string;
  name: string;
  offset: number;
  size: number;
  signed: boolean;
  /** array length for "char[16]"-style fields (0 otherwise) */
  len: number;
}

export interface TraceEvent {
  id: number;
  system: string;
  name: string;
  /** DECLARE_EVENT_CLASS template name (event_class_<class>) */
  class: string;
  fields: readonly TraceEventField[];
  printFmt: string;
  /** TRACE_EVENT_FL_* flags of the trace_event_call */
  flags: number;
  /** true when backed by a `struct tracepoint` of the same name (TRACE_EVENT_FL_TRACEPOINT) */
  tracepoint: boolean;
  /** syscall number for syscalls/sys_enter_* and sys_exit_* */
  syscallNr?: number;
}

/** TRACE_EVENT_FL_TRACEPOINT (tracepoint.ts) */
const FL_TRACEPOINT = 1 << 4;

type RawField = [string, string, number, number, number, number];
/** events.json.gz's form of an event */
export interface RawEvent { system: string; name: string; class: string; fields: RawField[]; fmt: string; flags: number; id: number; nr?: number; module?: string }
type Details = [string, RawField[], string] | [string, RawField[], string, number];

const FORMAT = 'tapsim-events-2';

type HeaderEvent = [string, string, number, number, number, number];

interface Header {
  format: string;
  stamp: string;
  tracepoints: string[];
  /** system, name, id, flags, byte offset and length of the details after the header line */
  events: HeaderEvent[];
  /** event indices ordered by "system:name", then index (for exact lookups without a map) */
  byKey: number[];
}

interface DetailSource {
  buf: Buffer;
  base: number;
}

interface EventDetails {
  class: string;
  fields: readonly TraceEventField[];
  printFmt: string;
  syscallNr?: number;
}

/** An event whose details are read from the table on first use. */
class TableEvent implements TraceEvent {
  readonly tracepoint: boolean;
  private loaded: EventDetails | null = null;

  constructor(readonly id: number, readonly system: string, readonly name: string, readonly flags: number,
    private readonly src: DetailSource, private readonly off: number, private readonly len: number) {
    this.tracepoint = (flags & FL_TRACEPOINT) !== 0;
  }

  private details(): EventDetails {
    if (!this.loaded) {
      const at = this.src.base + this.off;
      const [cls, fields, fmt, nr] = JSON.parse(this.src.buf.toString('utf8', at, at + this.len)) as Details;
      this.loaded = {
        class: cls,
        fields: fields.map(([type, name, offset, size, signed, len]) => ({ type, name, offset, size, signed: signed !== 0, len })),
        printFmt: fmt,
        syscallNr: nr,
      };
    }
    return this.loaded;
  }

  get class(): string { return this.details().class; }
  get fields(): readonly TraceEventField[] { return this.details().fields; }
  get printFmt(): string { return this.details().printFmt; }
  get syscallNr(): number | undefined { return this.details().syscallNr; }
}

export interface EventTable {
  /** number of events (those without an id too) */
  count: number;
  /** event i in section order (its object made on first use) */
  event(i: number): TraceEvent;
  /** indices of the events with this system and name, ascending */
  find(system: string, name: string): number[];
  /** names of every `struct tracepoint`, sorted */
  tracepoints: string[];
}

function keyCmp(a: HeaderEvent, system: string, name: string): number {
  return a[0] < system ? -1 : a[0] > system ? 1 : a[1] < name ? -1 : a[1] > name ? 1 : 0;
}

export function encodeEventTable(raw: { events: RawEvent[]; tracepoints: string[] }, stamp: string): Buffer {
  const parts: Buffer[] = [];
  let off = 0;
  const events: Header['events'] = raw.events.map((e) => {
    const d: Details = e.nr !== undefined ? [e.class, e.fields, e.fmt, e.nr] : [e.class, e.fields, e.fmt];
    const b = Buffer.from(JSON.stringify(d), 'utf8');
    parts.push(b);
    off += b.length;
    return [e.system, e.name, e.id, e.flags, off - b.length, b.length];
  });
  const byKey = events.map((_, i) => i).sort((a, b) => keyCmp(events[a], events[b][0], events[b][1]) || a - b);
  const head = JSON.stringify({ format: FORMAT, stamp, tracepoints: raw.tracepoints, events, byKey } satisfies Header);
  return Buffer.concat([Buffer.from(head + '\n', 'utf8'), ...parts]);
}

/** The table in `buf` if it is one made from data with this stamp, else null. */
export function decodeEventTable(buf: Buffer, stamp: string): EventTable | null {
  const nl = buf.indexOf(10);
  if (nl < 0) return null;
  let h: Header;
  try {
    h = JSON.parse(buf.toString('utf8', 0, nl)) as Header;
  } catch {
    return null;
  }
  if (h.format !== FORMAT || h.stamp !== stamp) return null;
  const src: DetailSource = { buf, base: nl + 1 };
  const evs = h.events;
  const made = new Array<TraceEvent | undefined>(evs.length);
  const byKey = h.byKey;
  // (events are made as asked for: a start looks up one or two of ~1500)
  const event = (i: number): TraceEvent => {
    let ev = made[i];
    if (!ev) {
      const e = evs[i];
      ev = made[i] = new TableEvent(e[2], e[0], e[1], e[3], src, e[4], e[5]);
    }
    return ev;
  };
  const find = (system: string, name: string): number[] => {
    let lo = 0, hi = byKey.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keyCmp(evs[byKey[mid]], system, name) < 0) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    while (lo < byKey.length && keyCmp(evs[byKey[lo]], system, name) === 0) out.push(byKey[lo++]);
    return out;
  };
  return { count: evs.length, event, find, tracepoints: h.tracepoints };
}

/** The data files of the table: vmlinux's events, then the loaded modules' (scripts/kernel-data/module_events.py). */
const SOURCES = ['events.json.gz', 'module_events.json.gz'];

export function eventSourceStamp(): string {
  return dataFilesStamp(SOURCES, ',');
}

/** The table `npm run build` writes: dist/kernel-tables/events.tab. */
export function builtEventTableFile(): string {
  return path.join(__dirname, '..', '..', 'kernel-tables', 'events.tab');
}

function cachedEventTableFile(): string | null {
  return cacheFile('events.tab');
}

/**
 * vmlinux's events in section order, then the modules' in registration order (load order, each one's
 * _ftrace_events order: their ids continue vmlinux's); the tracepoint names of both, sorted.
 */
function parseEventData(): { events: RawEvent[]; tracepoints: string[] } {
  const [core, mods] = SOURCES.map((f) => JSON.parse(readDataText(f)) as { events: RawEvent[]; tracepoints: string[] });
  return { events: [...core.events, ...mods.events], tracepoints: [...core.tracepoints, ...mods.tracepoints].sort() };
}

/** The table: the build's (or a cached) one when current, else parsed from the text data (`parsed`) and cached. */
export function openEventTable(): { table: EventTable; parsed: boolean } {
  const stamp = eventSourceStamp();
  const decode = (buf: Buffer) => decodeEventTable(buf, stamp);
  return openDerivedTable([builtEventTableFile(), cachedEventTableFile()], wholeFile(decode), decode, () => encodeEventTable(parseEventData(), stamp));
}

/** Build step: write the table for the current data files to `file`. */
export function writeEventTable(file: string): number {
  return writeDerivedTable(file, encodeEventTable(parseEventData(), eventSourceStamp()));
}
