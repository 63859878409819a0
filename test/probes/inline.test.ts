import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { matchInlined, inlineInstancesIn } from '../../src/kernel/inline_sites';
import { lookupName, isFunction, symbolAddr, symbolName } from '../../src/kernel/kallsyms';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
function stap(...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'latin1', timeout: 60000 });
}

describe('probes: inline instances (DW_TAG_inlined_subroutine)', function () {
  this.timeout(60000);
  it('the data has tcp_transmit_skb inlined into tcp_write_xmit and tcp_connect, with call lines', () => {
    const [f] = matchInlined({ func: 'tcp_transmit_skb' });
    expect(f.file).to.equal('net/ipv4/tcp_output.c');
    expect(f.line).to.equal(1422);
    expect(f.params.map((p) => p.name)).to.deep.equal(['sk', 'skb', 'clone_it', 'gfp_mask']);
    const callers = new Set(f.instances.map((i) => symbolName(i.caller)));
    expect([...callers]).to.include.members(['tcp_write_xmit', 'tcp_connect']);
    const xmit = lookupName('tcp_write_xmit').find(isFunction)!;
    const inst = inlineInstancesIn(xmit).filter((i) => i.fn === f);
    expect(inst.map((i) => i.callLine)).to.include(2722);
    for (const i of inst) expect(i.addr).to.be.greaterThan(symbolAddr(xmit));
  });
  it('-l lists one probe point per inlined function, -L its parameters', () => {
    let r = stap('-l', 'kernel.function("tcp_transmit_skb")');
    expect(r.stdout).to.equal('kernel.function("tcp_transmit_skb@net/ipv4/tcp_output.c:1422")\n');
    r = stap('-L', 'kernel.function("tcp_transmit_skb").inline');
    expect(r.stdout).to.equal('kernel.function("tcp_transmit_skb@net/ipv4/tcp_output.c:1422").inline $sk:struct sock* $skb:struct sk_buff* $clone_it:int $gfp_mask:gfp_t\n');
  });
  it('.call never matches inline instances; .inline never matches out-of-line bodies', () => {
    let r = stap('-l', 'kernel.function("tcp_transmit_skb").call');
    expect(r.stdout).to.equal('');
    expect(r.status).to.equal(1);
    r = stap('-l', 'kernel.function("__tcp_transmit_skb").inline');
    expect(r.stdout).to.equal('');
    r = stap('-l', 'kernel.function("__tcp_transmit_skb").call');
    expect(r.stdout).to.equal('kernel.function("__tcp_transmit_skb@net/ipv4/tcp_output.c:1240").call\n');
  });
  it('.return of an inlined function is refused as stap does', () => {
    const r = stap('-p2', '-e', 'probe kernel.function("tcp_transmit_skb").return { }');
    expect(r.stderr).to.contain('WARNING: cannot probe .return of 1 inlined function  tcp_transmit_skb\n');
    expect(r.status).to.equal(1);
  });
  it('-p2 resolves one probe per instance', () => {
    const r = stap('-p2', '-e', 'probe kernel.function("tcp_transmit_skb") { printf("%p\\n", $skb) }');
    const pps = r.stdout.split('\n').filter((l) => l.startsWith('kernel.function("tcp_transmit_skb@'));
    const [f] = matchInlined({ func: 'tcp_transmit_skb' });
    expect(pps.length).to.equal(f.instances.length);
  });
});
