/**
 * RCU callbacks (src/machine/kernel/rcu.ts, rcu_batch.ts): a call_rcu in a recorded path queues the
 * callback its caller passes (file_free_rcu for __fput's, the maple tree's untraced mt_free_rcu, seen
 * as a bare kmem_cache_free ...) on its CPU's list; after a grace period the CPU's RCU softirq runs
 * them in rcu_do_batch, `rcu_cblist_dequeue CB` each and one more dequeue that finds the list empty
 * (the recordings' shape), at most blimit (10) per rcu_core while a task is current, invoke_rcu_core
 * raising RCU_SOFTIRQ again for the rest.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { resetFtrace } from '../../src/kernel/ftrace';
import { counting } from './ftrace_counting';
import { batchKids, batchPlan, batchTree, callbackOf, callbackTree, composedShape, RCU_BLIMIT, RCU_CORE_KEY, SLOW } from '../../src/machine/kernel/rcu_batch';
import { compileTree, modelFnId, modelFunctions, modelKey, parseModelShape, variantAt, variantCount } from '../../src/machine/paths/model';
import { setChunkChars, shapeText, type MNode } from '../../src/machine/paths/compile';
import { Prng } from '../../src/machine/core/prng';
import { compile } from '../translate/pipeline';
import { resetKernel, stapOnMachine } from '../probes/helpers';

const ids = (s: string): string => s.replace(/[a-z_][a-z0-9_.]*/g, (f) => String(modelFunctions().indexOf(f)));
const names = (s: string): string => s.replace(/\d+/g, (x) => modelFunctions()[Number(x)]);

describe('machine: RCU callbacks run in rcu_do_batch after a grace period', () => {
  afterEach(() => { resetFtrace(); resetKernel(); });

  it('the callback queued is the one call_rcu\'s caller passes', () => {
    expect(callbackOf('__fput')).to.equal('file_free_rcu');
    expect(callbackOf('dentry_free')).to.equal('__d_free');
    expect(callbackOf('put_task_struct_rcu_user')).to.equal('delayed_put_task_struct');
    // maple-tree nodes (mt_free_rcu: not traceable) show their kmem_cache_free under rcu_do_batch
    expect(callbackOf('vma_mas_store')).to.equal('kmem_cache_free');
  });

  it('rcu_do_batch\'s body: a dequeue per callback, the last dequeue unless the limit stopped the loop', () => {
    const rec = parseModelShape(ids('rcu_segcblist_ready_cbs rcu_segcblist_extract_done_cbs rcu_cblist_dequeue file_free_rcu(kmem_cache_free) rcu_cblist_dequeue rcu_segcblist_insert_done_cbs rcu_segcblist_add_len'));
    const cb = (f: string): MNode => parseModelShape(ids(f))[0];
    const three = [cb('kmem_cache_free(__slab_free)'), cb('put_cred_rcu(kmem_cache_free)'), cb('kmem_cache_free')];
    expect(names(shapeText(batchKids(rec, three, false)))).to.equal('rcu_segcblist_ready_cbs rcu_segcblist_extract_done_cbs '
      + 'rcu_cblist_dequeue kmem_cache_free(__slab_free) rcu_cblist_dequeue put_cred_rcu(kmem_cache_free) rcu_cblist_dequeue kmem_cache_free '
      + 'rcu_cblist_dequeue rcu_segcblist_insert_done_cbs rcu_segcblist_add_len');
    expect(names(shapeText(batchKids(rec, three.slice(0, 1), true)))).to.equal('rcu_segcblist_ready_cbs rcu_segcblist_extract_done_cbs '
      + 'rcu_cblist_dequeue kmem_cache_free(__slab_free) rcu_segcblist_insert_done_cbs rcu_segcblist_add_len');
  });

  it('a batch\'s program, joined from pieces compiled once per variant and tree, is the whole tree\'s', () => {
    const k = modelKey(RCU_CORE_KEY)!;
    const cbs = ['file_free_rcu', 'kmem_cache_free', '__d_free', 'i_callback', 'put_cred_rcu', 'delayed_put_pid', 'kmem_cache_free', 'file_free_rcu', '__d_free', 'kmem_cache_free'];
    // the whole tree compiled at once (its chunks, run in place, inline)
    const old = setChunkChars(Infinity);
    let joined = 0, batches = 0;
    try {
      for (let i = 0; i < variantCount(k); i++) {
        const v = variantAt(k, i);
        const plan = batchPlan(v, false);
        if (plan === null) continue;
        batches++;
        if (plan !== SLOW) joined++;
        for (const [n, stopped] of [[1, false], [3, true], [10, false], [10, true]] as const) {
          const seed = i * 16 + n + (stopped ? 1 : 0);
          const rand = new Prng(seed);
          const texts = cbs.slice(0, n).map((cb) => callbackTree(cb, rand));
          const got = batchTree(v, cbs.slice(0, n), stopped, new Prng(seed))!.code;
          const want = compileTree(RCU_CORE_KEY, composedShape(v, texts, stopped)!, modelFnId, false, true).code.code;
          const at = got.findIndex((op, j) => op !== want[j]);
          expect([got.length, at], `variant ${i}, ${n} callbacks`).to.deep.equal([want.length, got.length === want.length ? -1 : at]);
        }
      }
    } finally {
      setChunkChars(old);
    }
    expect(batches).to.be.greaterThan(10);
    expect(joined).to.equal(batches);
  });

  it('callbacks wait for a grace period; then a busy CPU runs blimit of them per rcu_core', () => {
    const m = new Machine({ seed: 3 });
    const c = m.cpus[1];
    const busy = { ...c, curr: { idle: false } } as unknown as typeof c;
    for (let i = 0; i < 14; i++) m.rcu.queued(c, i % 2 ? 'file_free_rcu' : 'kmem_cache_free');
    // callbacks needing a grace period while none runs: the tick raises RCU_SOFTIRQ
    expect(m.rcu.tick(busy)).to.equal(true);
    expect(m.timers.bases[1].rcuHoldUntil).to.equal(Infinity);
    // rcu_core before the grace period: none to run, one is requested
    const first = m.rcu.core(busy);
    expect(first.batch).to.deep.equal([]);
    expect(m.rcu.gpActive).to.equal(true);
    expect(m.rcu.tick(busy)).to.equal(false);
    // the grace period starts: a CPU notes it at its next rcu_core, passes a quiescent state at the
    // tick after, and reports it in the rcu_core that tick raises; then it has nothing to raise for
    m.rcu.gpStart();
    expect(m.rcu.tick(busy)).to.equal(true);
    expect(m.rcu.core(busy).report).to.equal(false);
    expect(m.rcu.tick(busy)).to.equal(true);
    expect(m.rcu.core(busy).report).to.equal(true);
    expect(m.rcu.tick(busy)).to.equal(false);
    // force_qs_rnp: a CPU idle with its tick stopped is reported for it; one running is waited for
    const idle = m.cpus[2];
    idle.idling = true;
    m.timers.bases[2].tickStopped = true;
    expect(m.rcu.owes[2]).to.equal(true);
    expect(m.rcu.forceQs()).to.equal(true);
    expect(m.rcu.owes[2]).to.equal(false);
    // queued during the grace period: they wait for the next one
    m.rcu.queued(c, '__d_free');
    m.rcu.gpEnd();
    expect(m.rcu.gpActive).to.equal(true);
    const a = m.rcu.core(busy);
    expect(a.batch.length).to.equal(RCU_BLIMIT);
    expect(a.batch.slice(0, 2)).to.deep.equal(['kmem_cache_free', 'file_free_rcu']);
    expect(a.more).to.equal(true);
    const b = m.rcu.core(busy);
    expect([b.batch.length, b.more]).to.deep.equal([4, false]);
    expect(m.rcu.core(busy).batch).to.deep.equal([]);
    m.rcu.gpEnd();
    expect(m.rcu.core(busy).batch).to.deep.equal(['__d_free']);
    expect(m.rcu.gpActive).to.equal(false);
    // a CPU without callbacks lets its tick stop again
    expect(m.timers.bases[1].rcuHoldUntil).to.equal(0);
    // a long list: bl = pending >> rcu_divisor (2000 >> 7 = 15) while a task runs; the idle task runs them all
    for (let i = 0; i < 2000; i++) m.rcu.queued(c, 'kmem_cache_free');
    m.rcu.core(busy);
    m.rcu.gpEnd();
    expect(m.rcu.core(busy).batch.length).to.equal(15);
    expect(m.rcu.core({ ...c, curr: { idle: true } } as unknown as typeof c).batch.length).to.equal(1985);
  });

  it('a workload\'s closed files are freed by file_free_rcu in rcu_do_batch, one dequeue per callback and one per batch', () => {
    const m = new Machine({ seed: 7 });
    const c = counting(['call_rcu', '__fput', 'file_free_rcu', 'rcu_do_batch', 'rcu_cblist_dequeue', 'invoke_rcu_core'], 'rcu');
    expect(m.run('sh -c "cat /etc/passwd /etc/group /etc/hostname > /dev/null; ls / > /dev/null"').status).to.equal(0);
    m.runFor(200e6);
    c.stop();
    const n = Object.fromEntries(c.n);
    expect(n.call_rcu).to.be.greaterThan(20);
    expect(n.file_free_rcu).to.be.greaterThan(5);
    expect(n.file_free_rcu).to.be.at.most(n.__fput);
    expect(n.rcu_do_batch).to.be.greaterThan(0);
    // a batch the limit stopped (invoke_rcu_core) has no final empty dequeue
    expect(n.rcu_cblist_dequeue).to.be.within(n.rcu_do_batch + 1, n.call_rcu + n.rcu_do_batch);
  });

  it('stap: kmem_cache_free fires in the RCU softirq under rcu_do_batch', async () => {
    const r = await stapOnMachine(compile(`
      global fr, cb, fput
      probe kernel.function("__fput") { fput++ }
      probe kernel.trace("kmem_cache_free") { bt = sprint_backtrace(); if (isinstr(bt, "rcu_do_batch")) fr[isinstr(bt, "handle_softirqs")] <<< 1 }
      probe kernel.function("file_free_rcu") { cb[isinstr(sprint_backtrace(), "rcu_core")] <<< 1 }
      probe end {
        foreach ([i] in fr) printf("kmem_cache_free in_softirq=%d %s\\n", i, @count(fr[i]) > 0 ? "yes" : "no")
        foreach ([i] in cb) printf("file_free_rcu under rcu_core=%d %d\\n", i, @count(cb[i]))
        printf("__fput %d\\n", fput)
      }`), 'sh -c "cat /etc/passwd > /dev/null; sleep 0.1"', { commandOutput: false });
    expect(r.err).to.equal('');
    // every callback ran in the softirq; the files closed in the last grace period are still waiting at the end
    const m = /^kmem_cache_free in_softirq=1 yes\nfile_free_rcu under rcu_core=1 (\d+)\n__fput (\d+)\n$/.exec(r.out);
    expect(m, r.out).to.not.equal(null);
    const [freed, fput] = [Number(m![1]), Number(m![2])];
    expect(freed).to.be.greaterThan(fput / 3);
    expect(freed).to.be.at.most(fput);
  });
});
