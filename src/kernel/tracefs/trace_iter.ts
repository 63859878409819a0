/**
 * struct trace_iterator: reading a trace instance's buffer in time order over the CPUs, either
 * without consuming (the `trace` and per_cpu/cpuN/trace files) or consuming (trace_pipe), with
 * the per-CPU lookahead the function_graph output needs to recognise leaf calls, and the text
 * generation loop of s_show()/print_trace_line(): header, lost-event lines, the annotate
 * "##### CPU N buffer started ####" lines, context, and each record's printer (or the current
 * tracer's own print_line).
 */
import { RbEventRef } from '../ring_buffer';
import { SavedCmdlines } from './saved_cmdlines';
import { TraceArray } from './trace_array';
import {
  RecView, OutIter, OutputRegistry, contextText, latContextText, funcHeader, latencyHeader, LAT_HELP_HEADER,
} from './trace_output';

/** A tracer's hooks into the output (struct tracer print_header / print_line / open). */
export interface TracerOutput {
  /** replaces the default header (null: use the default) */
  printHeader?(it: TraceIter): string | null;
  /** the whole text of a record, or null to let the default printing handle it */
  printLine?(it: TraceIter, r: RecView): string | null;
  /** a reader opened (per-reader state) */
  open?(it: TraceIter): void;
}

export class TraceIter implements OutIter {
  readonly cpus: number[];
  private readonly heads = new Map<number, RbEventRef | null>();
  private readonly gens = new Map<number, Iterator<RbEventRef>>();
  /** the current record and its lost-events count */
  readonly rec = new RecView();
  lost = 0;
  idx = 0;
  /** per-reader private data of the tracer (fgraph_data) */
  priv: unknown = null;
  symOffset: boolean;
  symAddr: boolean;
  printParent: boolean;
  lat: boolean;
  hashPtr: boolean;
  /** CPUs whose first line was printed (annotate) */
  private readonly started = new Set<number>();
  private readonly annotate: boolean;
  /** time stamp of the first event (latency-format relative times) */
  startTs = -1;

  constructor(readonly tr: TraceArray, readonly cmdlines: SavedCmdlines, readonly out: OutputRegistry,
    readonly consuming: boolean, cpu?: number, readonly tracer?: TracerOutput) {
    this.cpus = cpu === undefined ? [...Array(tr.host.ncpus).keys()] : [cpu];
    this.symOffset = tr.opt('sym-offset');
    this.symAddr = tr.opt('sym-addr');
    this.printParent = tr.opt('print-parent');
    this.lat = tr.opt('latency-format');
    this.hashPtr = tr.opt('hash-ptr');
    // TRACE_FILE_ANNOTATE: set at open when the buffer overran
    this.annotate = !consuming && tr.opt('annotate') && tr.buffer.overruns() > 0;
    if (!consuming) for (const c of this.cpus) { const g = tr.buffer.cpuEvents(c); this.gens.set(c, g); this.heads.set(c, copy(g.next())); }
    tracer?.open?.(this);
  }

  /** The next event of one CPU without taking it (the graph leaf check). */
  peekCpu(cpu: number): RbEventRef | null {
    if (this.consuming) return this.tr.buffer.peekCpu(cpu);
    return this.heads.get(cpu) ?? null;
  }

  /** Take the next event of one CPU (after a peek that found a leaf's return). */
  skipCpu(cpu: number): void {
    if (this.consuming) { this.tr.buffer.consumeCpu(cpu); return; }
    const g = this.gens.get(cpu);
    if (g) this.heads.set(cpu, copy(g.next()));
  }

  /** Advance to the oldest event over the CPUs; false at the end. */
  next(): boolean {
    if (this.consuming) {
      const r = this.tr.buffer.consume(this.cpus);
      if (!r) return false;
      this.rec.set({ ...r.event });
      this.lost = r.lost;
    } else {
      let best = -1, bestTs = Infinity;
      for (const c of this.cpus) {
        const h = this.heads.get(c);
        if (h && h.ts < bestTs) { best = c; bestTs = h.ts; }
      }
      if (best < 0) return false;
      this.rec.set(this.heads.get(best)!);
      this.skipCpu(best);
      this.lost = 0;
    }
    this.idx++;
    if (this.startTs < 0) this.startTs = this.rec.ts;
    return true;
  }

  /** Time stamp of the event after the current one (latency-format delay marks). */
  nextTs(): number {
    let t = Infinity;
    for (const c of this.cpus) {
      const h = this.peekCpu(c);
      if (h && h.ts < t) t = h.ts;
    }
    return t === Infinity ? this.rec.ts : t;
  }

  /** print_trace_line(): one record's full text. */
  line(): string {
    const r = this.rec;
    const tr = this.tr;
    let s = '';
    if (this.lost) s += `CPU:${r.cpu} [LOST ${this.lost} EVENTS]\n`;
    if (this.tracer?.printLine) {
      const t = this.tracer.printLine(this, r);
      if (t !== null) return s + t;
    }
    const p = this.out.get(r.type);
    if (tr.opt('raw')) {
      const ctx = tr.opt('context-info') ? `${r.pid} ${r.cpu} ${r.ts} ` : '';
      return s + ctx + (p?.raw ? p.raw(r, this) : '');
    }
    if (tr.opt('hex') || tr.opt('bin')) return s + this.hexLine(r);
    if (this.annotate && !this.started.has(r.cpu)) {
      this.started.add(r.cpu);
      if (this.idx > 1) s += `##### CPU ${r.cpu} buffer started ####\n`;
    }
    if (tr.opt('context-info')) s += this.lat ? latContextText(r, this, this.startTs, this.nextTs(), this.idx - 1) : contextText(r, this);
    if (!p) return s + `Unknown type ${r.type}\n`;
    return s + p.trace(r, this);
  }

  /** print_hex_fmt(): pid cpu ts as hex fields, then the record bytes in hex. */
  private hexLine(r: RecView): string {
    let s = '';
    if (this.tr.opt('context-info')) {
      const h = (v: number, n: number) => BigInt.asUintN(n * 8, BigInt(v)).toString(16).padStart(n * 2, '0');
      s += `${h(r.pid, 4)}${h(r.cpu, 4)}${h(r.ts, 8)}`;
    }
    return s + '\n';
  }

  /** The header the `trace` file starts with (s_show() for the NULL entry). */
  header(): string {
    const tr = this.tr;
    let s = `# tracer: ${tr.tracerName}\n#\n`;
    const custom = this.tracer?.printHeader?.(this);
    if (custom !== undefined && custom !== null) return s + custom;
    if (!tr.opt('context-info')) return s;
    if (this.lat) {
      if (tr.buffer.empty(this.cpus)) return s;
      s += latencyHeader(tr, this.cpus);
      if (!tr.opt('verbose')) s += LAT_HELP_HEADER;
      return s;
    }
    if (!tr.opt('verbose')) s += funcHeader(tr, this.cpus);
    return s;
  }

  /** The `trace` file: header then every line. */
  *text(withHeader: boolean): Generator<string, void, void> {
    if (withHeader) yield this.header();
    while (this.next()) yield this.line();
  }
}

function copy(r: IteratorResult<RbEventRef, void>): RbEventRef | null {
  return r.done ? null : { ...r.value };
}
