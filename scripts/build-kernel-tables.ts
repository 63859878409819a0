/**
 * Build step: the kernel symbol table (data/kernel/kallsyms.gz + modules.gz) in its compact
 * binary form, dist/kernel-tables/ksymtab.bin (see src/kernel/ksymtab.ts), so a run reads typed
 * arrays instead of parsing ~94k text lines; and the trace event table with per-event details
 * read on demand, dist/kernel-tables/events.tab (src/kernel/event_table.ts).  The tables record
 * the data files' sizes and times; a stale one is only unused.
 */
import { writeSymtab, builtSymtabFile } from '../src/kernel/ksymtab';
import { writeEventTable, builtEventTableFile } from '../src/kernel/event_table';

const t0 = Date.now();
const bytes = writeSymtab(builtSymtabFile()) + writeEventTable(builtEventTableFile());
process.stderr.write(`kernel tables: ${Math.round(bytes / 1024)} KB in ${Date.now() - t0} ms\n`);
