/**
 * The loopback receive path on recorded trees (src/machine/net/rx.ts): each packet process_backlog takes
 * off the backlog runs the `__netif_receive_skb(...)` tree the real Debian 12 kernel ran for the same case
 * (the recordings' NET_RX softirqs, entry-model key softirq:net_rx_action), chosen by the machine's own
 * decision (protocol, TCP case, data queued, FIN, ACK of new data, a reader asleep), in the softirq the
 * sender's __local_bh_enable_ip runs; a case no recording shows runs the template.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import type { U } from '../../src/machine/process/user';
import type { Prog } from '../../src/machine/include/sched';
import { resetFtrace } from '../../src/kernel/ftrace';
import { counting } from './ftrace_counting';
import { rxTree } from '../../src/machine/net/rx';
import { modelFunctions } from '../../src/machine/paths/model';
import { compile } from '../translate/pipeline';
import { resetKernel, stapOnMachine } from '../probes/helpers';

const AF_INET = 2, SOCK_STREAM = 1, MSG_WAITALL = 0x100;

/** one tbench exchange: Debian's tbench_srv and a tbench client replaying one WriteX line of client.txt */
const TBENCH_ONE = 'sed -n 12p /usr/share/dbench/client.txt > /tmp/tb; echo "1.5 Sleep 0 NT_STATUS_OK" >> /tmp/tb; tbench_srv > /dev/null & sleep 1; tbench -t 1 -c /tmp/tb 1 127.0.0.1; kill $!';


const names = (t: { text: string } | null): string => (t ? t.text.replace(/\d+/g, (x) => modelFunctions()[Number(x)]) : '');

describe('machine: the loopback receive path on recorded trees', () => {
  afterEach(() => { resetFtrace(); resetKernel(); });

  it('the catalogue: per-packet trees of the recorded NET_RX softirqs, by case', () => {
    const l = (...x: string[]) => new Set(x);
    // an established connection's data for a sleeping reader: queued, the delayed ACK armed, the reader woken
    const data = names(rxTree(l('tcp', 'est', 'data', 'ack', 'delack', 'wake'), 0.5));
    expect(data).to.match(/^__netif_receive_skb\(/);
    for (const f of ['ip_rcv', 'tcp_v4_rcv', 'tcp_v4_fill_cb', 'tcp_filter', 'tcp_rcv_established', 'tcp_ack', 'tcp_queue_rcv', 'tcp_send_delayed_ack', 'sock_def_readable']) {
      expect(data).to.match(new RegExp(`[ (]${f}[ ()]`), f);
    }
    expect(data).to.match(/[ (]w[ )]/);
    // a pure ACK: no data queued, no reader woken
    const ack = names(rxTree(l('tcp', 'est', 'ack'), 0.5));
    expect(ack).to.contain('tcp_ack(');
    expect(ack).not.to.contain('tcp_queue_rcv');
    expect(ack).not.to.match(/[ (]w[ )]/);
    // a SYN to a listener: the request sock and the SYN-ACK's transmit
    const syn = names(rxTree(l('tcp', 'state', 'syn', 'ack'), 0.5));
    expect(syn).to.contain('tcp_v4_conn_request(');
    expect(syn).to.contain('__dev_queue_xmit(');
    // the recordings never received a reset: the template's case
    expect(rxTree(l('tcp', 'rst'), 0.5)).to.equal(null);
  });

  it('data sent to a reader asleep: the receive tree runs in the sender\'s softirq, queues it and wakes the reader', () => {
    // (a seed whose reader's recvfrom draws a recorded tree without a socket backlog to process: with seed 41
    // it draws one whose release_sock ran __release_sock over 2 segments, tcp_v4_do_rcv's tcp_queue_rcv x2)
    const m = new Machine({ seed: 42 });
    const c = counting(['net_rx_action', 'tcp_v4_rcv', 'tcp_v4_fill_cb', 'tcp_queue_rcv', 'tcp_data_ready', 'tcp_send_delayed_ack', 'tcp_finish_connect'], 'net_rx');
    const seen: Record<string, number[]> = {};
    let got = '';
    let b1: number[] = [];
    m.fs.createFile('/usr/bin/rx1', 'ELF', 0o755);
    m.procs.programs.set('/usr/bin/rx1', function* (u: U): Prog {
      const l = yield* u.socket(AF_INET, SOCK_STREAM);
      yield* u.bind(l, 5201);
      yield* u.listen(l);
      const pid = yield* u.fork(function* (cu: U): Prog {
        const s = yield* cu.socket(AF_INET, SOCK_STREAM);
        const b0 = [...c.n.values()];
        yield* cu.connect(s, 5201);
        seen.connect = [...c.n.values()].map((v, j) => v - b0[j]);
        yield* cu.nanosleep(5e6);
        b1 = [...c.n.values()];
        yield* cu.send(s, 'hello');
        yield* cu.nanosleep(5e6);
        yield* cu.close(s);
        return 0;
      });
      const a = yield* u.accept(l);
      const r = yield* u.recv(a, 5, MSG_WAITALL);
      // from the send to the reader's return (its wakeup is its own CPU's: the wake list IPI)
      seen.send = [...c.n.values()].map((v, j) => v - b1[j]);
      got = Buffer.from(r.data ?? []).toString();
      yield* u.close(a);
      yield* u.wait(pid);
      return 0;
    });
    expect(m.run('rx1').status).to.equal(0);
    c.stop();
    expect(got).to.equal('hello');
    // connect: the SYN received by the listener (recorded tree: tcp_v4_fill_cb), the SYN-ACK received by the
    // client (the template: on the real kernel it waits in the socket's backlog, tcp_add_backlog), the
    // handshake's ACK completing the connection (recorded)
    const [nrx, rcv, fill, q, ready, delack, fin] = seen.connect;
    expect([rcv, fill, q, fin]).to.deep.equal([3, 2, 0, 1]);
    expect(nrx).to.be.at.least(1);
    expect([ready, delack]).to.deep.equal([0, 0]);
    // the send: its segment received in the sender's softirq, queued (tcp_queue_rcv, tcp_data_ready), the
    // delayed ACK armed, on the recorded tree; the reader, woken, reads it all and tcp_cleanup_rbuf sends the
    // ACK owed right away (received as a pure ACK, recorded tree too) before its read returns
    expect(seen.send.slice(1)).to.deep.equal([2, 2, 1, 1, 1, 0]);
  });

  it('stap: net_rx_action, tcp_v4_rcv and netdev.receive fire in the senders\' softirqs, once per packet', async () => {
    const r = await stapOnMachine(compile(`
      global nrx, rcv, fill, recv
      probe kernel.function("net_rx_action") { nrx[execname(), isinstr(sprint_backtrace(), "__do_softirq")] <<< 1 }
      probe kernel.function("tcp_v4_rcv") { rcv[execname(), isinstr(sprint_backtrace(), "net_rx_action")] <<< 1 }
      probe kernel.function("tcp_v4_fill_cb") { fill++ }
      probe netdev.receive { recv[dev_name, protocol] <<< length }
      probe end {
        foreach ([e, s] in nrx) printf("net_rx_action %s softirq=%d %d\\n", e, s, @count(nrx[e, s]))
        foreach ([e, s] in rcv) printf("tcp_v4_rcv %s in_net_rx=%d %d\\n", e, s, @count(rcv[e, s]))
        foreach ([d, p] in recv) printf("netdev.receive %s %d %d\\n", d, p, @count(recv[d, p]))
        printf("tcp_v4_fill_cb %d\\n", fill)
      }`), TBENCH_ONE, { commandOutput: false });
    expect(r.err).to.equal('');
    // 14 segments (handshake, the WriteX request and reply with their ACKs, both FINs and their ACKs), each
    // received by the other side in the softirq its sender's __local_bh_enable_ip runs, except two ACKs
    // owed after the WriteX exchange, which the delayed-ACK timer (tcp_delack_timer, 40 ms later) sends
    // from the TIMER softirq of the then idle CPU it was armed on, so the NET_RX after it runs in the idle
    // task's context (swapper/N); 11 on recorded trees (tcp_v4_fill_cb, which the template never calls),
    // the client's SYN-ACK and the two FINs' ACKs on the template (on the real kernel: the socket's
    // backlog, and cases no recording shows).  Which task's softirq receives a segment follows the run's
    // timing (the last task to close the shared socket sends the FIN; a NET_RX left pending runs at the next
    // interrupt's exit, as on the real kernel, whatever task that interrupts: also the shell that waits for
    // tbench and kills tbench_srv): the totals per kind are the packets
    const lines = r.out.trim().split('\n');
    const total = (kind: string): number => lines.filter((l) => l.startsWith(`${kind} `)).reduce((a, l) => a + Number(l.split(' ').pop()), 0);
    for (const l of lines.filter((x) => x.startsWith('net_rx_action '))) expect(l).to.match(/^net_rx_action (tbench|tbench_srv|sh|swapper\/\d) softirq=1 \d+$/);
    for (const l of lines.filter((x) => x.startsWith('tcp_v4_rcv '))) expect(l).to.match(/^tcp_v4_rcv (tbench|tbench_srv|sh|swapper\/\d) in_net_rx=1 \d+$/);
    expect(total('net_rx_action')).to.equal(11);
    expect(total('tcp_v4_rcv')).to.equal(14);
    expect(lines.filter((l) => l.startsWith('netdev.receive ') || l.startsWith('tcp_v4_fill_cb '))).to.deep.equal([
      // skb->protocol is big-endian: ETH_P_IP read as a host u16
      'netdev.receive lo 8 14',
      'tcp_v4_fill_cb 11',
    ]);
  });

  it('stap: a packet queued to an idle backlog raises NET_RX (softirq_raise vec=3), one queued while its NAPI is scheduled does not', async () => {
    const r = await stapOnMachine(compile(`
      global raise, nrx, rx
      probe kernel.trace("irq:softirq_raise") { raise[$vec_nr]++ }
      probe kernel.function("net_rx_action") { nrx++ }
      probe kernel.trace("net:netif_rx") { rx++ }
      probe end { printf("net_rx raise %d net_rx_action %d netif_rx %d\\n", raise[3], nrx, rx) }`), TBENCH_ONE, { commandOutput: false });
    expect(r.err).to.equal('');
    // (the tbench recording: 235 of its softirq_raise events are NET_RX, raised in the sender's
    // enqueue_to_backlog) here each of the 11 NET_RX softirqs was raised by the packet that found its CPU's
    // backlog idle; the replies sent from inside a NET_RX softirq (the SYN-ACK, ACKs) found it scheduled
    expect(r.out.trim()).to.equal('net_rx raise 11 net_rx_action 11 netif_rx 14');
  });

  it('stap: skb:consume_skb and skb:kfree_skb fire in the recorded trees\' consume_skb and kfree_skb_reason (ping)', async () => {
    const r = await stapOnMachine(compile(`
      global cons, drop
      probe kernel.trace("consume_skb") { cons[execname(), isinstr(sprint_backtrace(), "net_rx_action") ? "softirq" : "task", $skb != 0] <<< 1 }
      probe kernel.trace("kfree_skb") { drop[execname(), symname($location), $reason, $skb != 0] <<< 1 }
      probe end {
        foreach ([e, w, a] in cons) printf("consume_skb %s %s skb=%d %d\\n", e, w, a, @count(cons[e, w, a]))
        foreach ([e, l, why, a] in drop) printf("kfree_skb %s %s reason=%d skb=%d %d\\n", e, l, why, a, @count(drop[e, l, why, a]))
      }`), 'ping -c 3 -i 0.2 127.0.0.1', { commandOutput: false });
    expect(r.err).to.equal('');
    // the ping recording's graph run: per echo, the sendto's softirq consumes the request in icmp_rcv
    // (consume_skb) and drops the reply there after raw_rcv took its clone (ping_rcv finds no ping socket:
    // kfree_skb_reason(skb, SKB_DROP_REASON_NO_SOCKET), returning into icmp_rcv); ping's recvmsg frees the
    // datagram (skb_free_datagram -> consume_skb): 3 + 3 consume_skb, 3 kfree_skb_reason in sendto, 3
    // consume_skb in recvmsg; socket's two kfree_skb_reason calls (inet6_destroy_sock: kfree_skb(NULL))
    // free nothing and fire nothing
    expect(r.out).to.equal([
      'consume_skb ping softirq skb=1 3',
      'consume_skb ping task skb=1 3',
      'kfree_skb ping icmp_rcv reason=2 skb=1 3',
      '',
    ].join('\n'));
  });
});
