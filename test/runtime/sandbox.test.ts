/**
 * The generated module's scope (issue 18): only the runtime object R is reachable by name;
 * process, require, globalThis, Function, eval and every other global are shadowed, import()
 * has no loader, and once the command closes the function constructors, no function handed to
 * the module compiles code.
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { compileModule, shadowedNames } from '../../src/runtime/sandbox';

describe('runtime/sandbox: the generated module sees nothing but R', () => {
  it('shadows every global, the CommonJS names and Object.prototype members', () => {
    const names = ['process', 'require', 'module', 'exports', 'globalThis', 'global', 'Function', 'eval', 'Reflect', 'Buffer',
      'setTimeout', 'fetch', 'constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'WebAssembly', 'Object'];
    for (const n of names) expect(compileModule<string>(`return typeof ${n};`)({}), n).to.equal('undefined');
    expect(shadowedNames()).to.include.members(['process', 'require', 'globalThis', 'eval']);
    // what generated code uses by name is still there
    const g = compileModule<number>('return Math.trunc(Number("7.5")) + (typeof BigInt === "function" ? 1 : 0) + R.x;');
    expect(g({ x: 10 })).to.equal(18);
  });

  it('has no module loader: import() fails', async () => {
    const f = compileModule<Promise<unknown>>('return import("fs");');
    let err: unknown = null;
    await f({}).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(Error);
  });

  it('with the function constructors closed (the command), no function compiles code', () => {
    const sandbox = path.join(__dirname, '..', '..', 'src', 'runtime', 'sandbox.js');
    const prog = `
      const s = require(${JSON.stringify(sandbox)});
      s.closeFunctionConstructors();
      const m = s.compileModule(
        'const tries = [() => R.f.constructor("return process")(), () => (async () => 0).constructor("return process")(),' +
        ' () => ({}).constructor.constructor("return process")(), () => (function* () {}).constructor("return 1")()];' +
        'return tries.map((t) => { try { t(); return "ran"; } catch (e) { return e.name; } });');
      process.stdout.write(JSON.stringify(m({ f: () => 0 })));`;
    const r = spawnSync(process.execPath, ['-e', prog], { encoding: 'utf8' });
    expect(r.stderr).to.equal('');
    expect(JSON.parse(r.stdout)).to.deep.equal(['EvalError', 'EvalError', 'EvalError', 'EvalError']);
  });
});
