import { expect } from 'chai';
import { builtKnownSymbolsFile, readKnownSymbols, knownFirstAlias, knownSysModules, knownSymbolName } from '../../src/kernel/known_symbols';
import { sourceStamp, openSymtab } from '../../src/kernel/ksymtab';
import { resolveFirstAlias, firstAliasOf } from '../../src/kernel/kallsyms';
import { pathNames, pathFunctionNames } from '../../src/machine/paths/dsl';
import { compilerSymbolNames } from '../../src/machine/paths/model';
import { semanticsFunctionNames } from '../../src/machine/paths/semantics';
import { installKernelSemantics } from '../../src/machine/machine';

describe('kernel data: function ids the build works out for the call paths', () => {
  it('has, for the current symbol table, every name of every path, of the entry model\'s compiler and of the semantics with the answer a lookup gives', () => {
    const known = readKnownSymbols(builtKnownSymbolsFile(), sourceStamp());
    expect(known, 'dist/kernel-tables/known-symbols.json is current').to.not.equal(null);
    // the subsystems' semantics define their own paths (timer, workqueue) when installed: install
    // them first, as the build step does, so the answer does not depend on which test ran before
    installKernelSemantics();
    const paths = new Set(pathNames().flatMap(pathFunctionNames));
    expect(paths.size).to.be.greaterThan(300);
    const names = new Set([...paths, ...compilerSymbolNames(), ...semanticsFunctionNames()]);
    expect(names.has('__schedule')).to.equal(true);
    expect([...known!.keys()].sort()).to.deep.equal([...names].sort());
    for (const [name, id] of known!) {
      expect(id, name).to.equal(resolveFirstAlias(name));
      // the tracepoint site table names a few functions this kernel does not have (kmalloc_large ...)
      if (paths.has(name)) expect(id, name).to.be.at.least(0);
    }
  });

  it('is used for those names only, and not when made from other data', () => {
    expect(knownFirstAlias('vfs_read')).to.equal(resolveFirstAlias('vfs_read'));
    expect(knownFirstAlias('not_a_kernel_function')).to.equal(undefined);
    expect(firstAliasOf('not_a_kernel_function')).to.equal(-1);
    expect(readKnownSymbols(builtKnownSymbolsFile(), 'kallsyms.gz=1:2')).to.equal(null);
    expect(readKnownSymbols('/nonexistent/known-symbols.json', sourceStamp())).to.equal(null);
  });

  it('lists the directories of /sys/module as the symbol table\'s module data has them', () => {
    const fromTable = openSymtab().table.sysModules();
    expect(fromTable).to.include('ext4');
    expect(knownSysModules()).to.deep.equal(fromTable);
  });

  it('names the ids of its answers as the symbol table does (an alias\'s id may name another symbol)', () => {
    const t = openSymtab().table;
    const known = readKnownSymbols(builtKnownSymbolsFile(), sourceStamp())!;
    for (const [name, id] of known) {
      if (id < 0) continue;
      expect(knownSymbolName(id), name).to.equal(t.name(id));
    }
    // an alias's id names the symbol the table puts first at its address (__x64_sys_sync, which the build's
    // names held until sync(2) ran its recorded tree, is __do_sys_sync's)
    expect(t.name(resolveFirstAlias('__x64_sys_sync'))).to.equal('__do_sys_sync');
    expect(knownSymbolName(knownFirstAlias('schedule')!)).to.equal('schedule');
  });
});
