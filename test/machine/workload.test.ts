/**
 * The programs under /usr/bin and the modules that hold them (src/machine/userland/workload.ts): the
 * table names each program's module, loaded when the program first runs.  The table and the modules'
 * exports must agree, or a program would vanish from the machine (or fail on its first run).
 */
import { expect } from 'chai';
import { PROGRAM_MODULES } from '../../src/machine/userland/workload';

describe('machine: program modules', () => {
  const names = Object.keys(PROGRAM_MODULES);
  it('every listed program is a main its module exports', () => {
    for (const name of names) expect(PROGRAM_MODULES[name]()[name], name).to.be.a('function');
  });
  it('every program a module exports is listed, with that module', () => {
    // (core's sh and bash are replaced by the shell, src/machine/userland/sh/exec.ts)
    for (const load of new Set(Object.values(PROGRAM_MODULES))) {
      for (const name of Object.keys(load()).filter((n) => n !== 'sh' && n !== 'bash')) expect(PROGRAM_MODULES[name], name).to.equal(load);
    }
  });
});
