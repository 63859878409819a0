/**
 * Build step: the kernel symbol table (data/kernel/kallsyms.gz + modules.gz) in its compact
 * binary form, dist/kernel-tables/ksymtab.bin (see src/kernel/ksymtab.ts), so a run reads typed
 * arrays instead of parsing ~94k text lines; and the trace event table with per-event details
 * read on demand, dist/kernel-tables/events.tab (src/kernel/event_table.ts); and the function
 * ids of the names in the machine's call paths, dist/kernel-tables/known-symbols.json
 * (src/kernel/known_symbols.ts), with the names the entry model's compiler looks up; and the entry
 * model split by key with its functions' ids and its trees compiled, dist/kernel-tables/paths-model.bin
 * (src/machine/paths/model_table.ts); and the hand-written call-path templates compiled,
 * dist/kernel-tables/templates.bin (src/machine/paths/template_table.ts).  The tables record the data files' sizes and times; a stale one
 * is only unused.
 */
import { writeSymtab, builtSymtabFile } from '../src/kernel/ksymtab';
import { writeEventTable, builtEventTableFile } from '../src/kernel/event_table';
import { writeKnownSymbols, builtKnownSymbolsFile } from '../src/kernel/known_symbols';
import { resolveFirstAlias, sysModuleNames, symbolName } from '../src/kernel/kallsyms';
import { pathNames, pathFunctionNames, pathSource, templatesForBuild } from '../src/machine/paths/dsl';
import { writeTemplateTable, builtTemplateTableFile } from '../src/machine/paths/template_table';
import { modelFile, readModelFile, compilerSymbolNames, modelSummariser, programCompiler, modelSymbolId } from '../src/machine/paths/model';
import { writeModelTable, builtModelTableFile } from '../src/machine/paths/model_table';
import { semanticsFunctionNames } from '../src/machine/paths/semantics';
import { installKernelSemantics } from '../src/machine/machine';

const t0 = Date.now();
let bytes = writeSymtab(builtSymtabFile()) + writeEventTable(builtEventTableFile());
installKernelSemantics();
const mf = modelFile();
const model = mf ? readModelFile(mf) : null;
if (mf && model) bytes += writeModelTable(builtModelTableFile(), mf, model, (n) => modelSymbolId(n, resolveFirstAlias), modelSummariser(), programCompiler());
bytes += writeKnownSymbols(builtKnownSymbolsFile(), [...pathNames().flatMap(pathFunctionNames), ...compilerSymbolNames(), ...semanticsFunctionNames()], resolveFirstAlias, sysModuleNames(), symbolName);
const tt = templatesForBuild();
bytes += writeTemplateTable(builtTemplateTableFile(), tt.programs, tt.names, pathSource);
process.stderr.write(`kernel tables: ${Math.round(bytes / 1024)} KB in ${Date.now() - t0} ms\n`);
