import { expect } from 'chai';
import type * as A from '../../src/ast';
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import { elaborate, TapsetLibrary, stdlibDir } from '../../src/elaborate';
import { translate, Translated } from '../../src/translate';
import { resetKernel, stapOnMachine } from './helpers';

/** The pipeline with the library macros, as the stap command runs it (guru: -g). */
function compile(text: string, guru = false): { tr?: Translated; err: string } {
  let err = '';
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, (s: string) => (err += s));
  const library = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru }, diag });
  const src: A.SourceFile = { name: '<input>', text, isTapset: false };
  const f = parseFile(src, { args: [], guru, usedArgs: new Set(), libraryMacros: library.macros() } as never, diag);
  if (!f || diag.errorCount) return { err };
  const prog = elaborate([f], { guru, args: [], library }, diag);
  if (!prog || diag.errorCount) return { err };
  return { tr: translate(prog, { diag }), err };
}
const IP = 'netfilter.hook("NF_INET_PRE_ROUTING").pf("NFPROTO_IPV4")';

describe('netfilter probes: pass 2', () => {
  it('checks protocol family, hook and priority names in stap\'s words', () => {
    expect(compile('probe netfilter.hook("NF_INET_PRE_ROUTING").pf("INTERGALACTIC_IPV3000") { }').err)
      .to.contain('semantic error: unsupported netfilter protocol family "INTERGALACTIC_IPV3000"; need stap -g');
    expect(compile('probe netfilter.pf("NFPROTO_IPV6").hook("NF_INET_PRE_ROUTING") { println(1) }').err)
      .to.contain('unsupported netfilter hook "NF_INET_PRE_ROUTING" for protocol family "10"; need stap -g');
    expect(compile(`probe ${IP}.priority("0x10") { println(1) }`).err)
      .to.contain('unsupported netfilter priority "0x10" for protocol family "2"; need stap -g');
    expect(compile(`probe ${IP}.priority("NF_IP6_PRI_FIRST") { println(1) }`).err).to.contain('unsupported netfilter priority');
    for (const p of ['NF_IP_PRI_MANGLE', ' -5', '+7', '-2147483648']) expect(compile(`probe ${IP}.priority("${p}") { println(1) }`).err, p).to.equal('');
    expect(compile('probe netfilter.hook("NF_BR_PRE_ROUTING").pf("NFPROTO_BRIDGE").priority("5") { println(1) }').err).to.equal('');
    expect(compile('probe netfilter.hook("NF_INET_PRE_ROUTING") { }').err).to.contain('probe point truncated (follow:  pf(string))');
  });

  it('guru mode lets other names through', () => {
    expect(compile('probe netfilter.hook("3").pf("2").priority("x") { println(1) }', true).err).to.equal('');
  });

  it('$verdict needs guru mode; parameters are read-only; other context variables are unsupported', () => {
    expect(compile(`probe ${IP} { printf("%d\\n", $verdict) }`).err).to.contain('write to netfilter verdict requires guru mode; need stap -g');
    expect(compile(`probe ${IP} { $verdict = 0 }`, true).err).to.equal('');
    expect(compile(`probe ${IP} { $skb = 1 }`, true).err).to.contain('write to netfilter parameter not permitted');
    expect(compile(`probe ${IP} { println($indev_name) }`).err).to.contain('unsupported context variable');
    expect(compile(`probe ${IP} { println($$vars) }`).err).to.contain('unsupported context variable');
    expect(compile(`probe ${IP} { println($hooknum + $skb->len + $in + $out + $okfn) }`).err).to.equal('');
  });
});

describe('netfilter probes: run', () => {
  afterEach(resetKernel);

  it('the tapset sees each packet once per hook; without netfilter probes nf_hook_slow runs only AppArmor\'s hook of the recorded echo replies', async () => {
    const withNf = await stapOnMachine(compile(`global n, slow
      probe netfilter.ipv4.local_out { n[protocol, daddr, length]++ }
      probe kernel.function("nf_hook_slow") { slow++ }
      probe end { foreach ([p, d, l] in n) printf("%d %s %d: %d\\n", p, d, l, n[p, d, l]); printf("slow %d\\n", slow) }`),
    'ping -c 3 -i 0.1 127.0.0.1', { commandOutput: false });
    expect(withNf.out).to.equal('1 127.0.0.1 84: 6\nslow 6\n');
    const without = await stapOnMachine(compile(`global slow
      probe kernel.function("nf_hook_slow") { slow++ }
      probe end { printf("slow %d\\n", slow) }`), 'ping -c 3 -i 0.1 127.0.0.1', { commandOutput: false });
    // the echo replies go out from the recorded receive trees (net/rx.ts), whose ip_output calls nf_hook_slow
    // for AppArmor's POST_ROUTING hook (apparmor_ip_postroute) as on the real kernel (data/recordings/ping:
    // 6 calls, the requests' and the replies'); ping's own sends run their template, which has no hook
    expect(without.out).to.equal('slow 3\n');
  });

  it('nf_hook_slow gets the packet, its nf_hook_state and the entries', async () => {
    // (the netfilter probe does something: an empty one only reads its context, and is elided as
    // real-stap elides such a probe, with no hook registered)
    const r = await stapOnMachine(compile(`global hooked
      probe netfilter.ipv4.post_routing { hooked++ }
      probe kernel.function("nf_hook_slow") {
        printf("hook %d pf %d len %d out %s okfn %s entries %d\\n", $state->hook, $state->pf, $skb->len,
          kernel_string($state->out->name), symname($state->okfn), $e->num_hook_entries)
      }`), 'ping -c 1 127.0.0.1', { commandOutput: false });
    expect(r.err).to.equal('');
    expect(r.out).to.equal('hook 4 pf 2 len 84 out lo okfn ip_finish_output entries 1\n'.repeat(2) + 'hooked=2\n');
  });

  it('a guru handler\'s verdict affects the packet', async () => {
    const r = await stapOnMachine(compile('probe netfilter.ip.local_out { if (protocol == 1) $verdict = nf_drop }', true),
      'ping -c 1 127.0.0.1');
    expect(r.out).to.contain('1 packets transmitted, 0 received, 100% packet loss');
  });
});
