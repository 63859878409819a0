/**
 * The probe registry loads a family when a probe point first names one of its root names
 * (src/elaborate/probes.ts, src/probes/setup.ts's FAMILIES): a begin-only script loads no
 * kernel-probe code, and what the tree enumerates is what registering everything at once gave.
 */
import { expect } from 'chai';
import { ProbeRegistry, type Provider } from '../../src/elaborate/probes';

const prov = (family: string): Provider => ({ family, build: () => [] });

function registry(loads: string[]): ProbeRegistry {
  const r = new ProbeRegistry();
  r.register('begin', prov('begin'));
  r.register('timer.s(number)', prov('timer'));
  r.addFamily({ roots: ['procfs'], load: (reg) => { loads.push('procfs'); reg.register('procfs(string).read', prov('procfs')); } });
  r.addFamily({
    roots: ['kernel', 'kprobe'],
    load: (reg) => {
      loads.push('kernel');
      reg.register('kernel.function(string)', prov('kernel.function'));
      reg.register('kprobe.function(string)', prov('kprobe'));
      reg.register('kernel.trace(string)', prov('kernel.trace'));
    },
  });
  return r;
}

describe('probe registry: families registered when a probe point names them', () => {
  it('a lookup of a kernel-free root loads nothing; one of a family root loads that family only', () => {
    const loads: string[] = [];
    const tree = registry(loads).cloneTree();
    expect(tree.children.get('begin')?.provider?.family).to.equal('begin');
    expect(tree.children.get('timer')?.children.get('s(number)')?.provider?.family).to.equal('timer');
    expect(loads).to.deep.equal([]);
    expect(tree.children.get('kprobe')?.children.get('function(string)')?.provider?.family).to.equal('kprobe');
    expect(tree.children.get('kernel')?.children.get('trace(string)')?.provider?.family).to.equal('kernel.trace');
    expect(loads).to.deep.equal(['kernel']);
  });

  it('enumerating the roots loads every family, in the order registering all at once gives', () => {
    const eager: string[] = [];
    const r1 = registry(eager);
    const all = [...r1.cloneTree().children.keys()];
    expect(all).to.deep.equal(['begin', 'timer', 'procfs(string)', 'kernel', 'kprobe']);
    expect(eager).to.deep.equal(['procfs', 'kernel']);
    // loaded in the other order (kernel first), the roots still come in the same order
    const loads: string[] = [];
    const tree = registry(loads).cloneTree();
    tree.children.get('kernel');
    tree.children.get('procfs(string)');
    expect(loads).to.deep.equal(['kernel', 'procfs']);
    expect([...tree.children.keys()]).to.deep.equal(all);
  });

  it('an enumeration that stops among the loaded roots loads no more (the provider of a loaded family)', () => {
    const loads: string[] = [];
    const r = registry(loads);
    r.root.children.get('kernel');
    let found: Provider | undefined;
    for (const n of r.root.children.values()) {
      if (n.name === 'kernel') {
        found = n.children.get('function(string)')?.provider;
        break;
      }
    }
    expect(found?.family).to.equal('kernel.function');
    expect(loads).to.deep.equal(['kernel']);
    expect(r.patterns).to.have.length(6); // every pattern: the rest loaded
    expect(loads).to.deep.equal(['kernel', 'procfs']);
  });

  it('an alias attached to a tree before its family loads joins the family root', () => {
    const loads: string[] = [];
    const tree = registry(loads).cloneTree();
    const mine = tree.child('kernel', 'none').child('mine', 'none');
    expect(loads).to.deep.equal(['kernel']);
    expect(tree.children.get('kernel')?.children.get('mine')).to.equal(mine);
    expect(tree.children.get('kernel')?.children.get('function(string)')?.provider?.family).to.equal('kernel.function');
  });
});
