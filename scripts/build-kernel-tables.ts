/**
 * Build step: the kernel symbol table (data/kernel/kallsyms.gz + modules.gz) in its compact
 * binary form, dist/kernel-tables/ksymtab.bin (see src/kernel/ksymtab.ts), so a run reads typed
 * arrays instead of parsing ~94k text lines.  The table records the data files' sizes and times;
 * a stale one is only unused.
 */
import { writeSymtab, builtSymtabFile } from '../src/kernel/ksymtab';

const t0 = Date.now();
const bytes = writeSymtab(builtSymtabFile());
process.stderr.write(`kernel tables: ${builtSymtabFile()} (${Math.round(bytes / 1024)} KB) in ${Date.now() - t0} ms\n`);
