/**
 * A call refused without -g (`printk`) in a function body makes stap 4.8 resolve the function
 * bodies once more: their errors are said twice, in the same order; in a probe body once, and a
 * function body without such a call once (real-stap -v -p2 on each; oracle library guru-form:in-fn).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';

function errors(src: string): string[] {
  const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
  const err = spawnSync(process.execPath, [cli, '-v', '-p2', '-e', src], { encoding: 'latin1', timeout: 90000 }).stderr;
  return err.split('\n').filter((l) => l.startsWith('semantic error')).map((l) => l.replace(/^.*'([a-z]+)' at (<input>)?:/, '$1 '));
}

describe('elaborate: guru-only calls in function bodies are said twice', () => {
  it('every error of the function bodies, again, after them all', () => {
    expect(errors('function f() { printk(1, "a") } probe begin { f() }')).to.deep.equal(['printk 1:16', 'printk 1:16']);
    expect(errors('function f() { printk(1, "a"); nosuch() } probe begin { f() }')).to.deep.equal(['printk 1:16', 'nosuch 1:32', 'printk 1:16', 'nosuch 1:32']);
    expect(errors('function f() { printk(1,"a") } function g() { printk(2,"b") } probe begin { f(); g() }'))
      .to.deep.equal(['printk 1:16', 'printk 1:47', 'printk 1:16', 'printk 1:47']);
    expect(errors('function f() { printk(1, "a") } probe begin { printk(2, "b"); f() }')).to.deep.equal(['printk 1:47', 'printk 1:16', 'printk 1:16']);
  });
  it('once in a probe body, or without a guru-only call', () => {
    expect(errors('probe begin { printk(1, "a") }')).to.deep.equal(['printk 1:15']);
    expect(errors('function f() { nosuch() } probe begin { f() }')).to.deep.equal(['nosuch 1:16']);
  });
});
