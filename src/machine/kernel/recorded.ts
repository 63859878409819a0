/**
 * Recorded call trees of one recording, by what they call: the variants of an entry-model key
 * (paths/model.ts) that a given recording ran (the `idle` recording for the idle system's ticks and
 * softirqs), narrowed to those whose tree calls every function of `has` and none of `hasNot`, drawn
 * by recorded frequency with the given PRNG (the timers' own stream: background activity never
 * changes which variants the workload's entries draw).  The machine's state decides `has`/`hasNot`
 * (the tick restarts or not, the CPU ran a fair task or the idle task, the expiring timer's callback),
 * so the tree that runs is one the real kernel ran in the same situation.
 */
import { modelKey, modelRecordings, modelFunctions, variantCode, type ModelKey, type ModelVariant } from '../paths/model';
import type { CompiledPath } from '../include/kstack';
import type { Prng } from '../core/prng';

interface Choice { key: ModelKey; list: ModelVariant[]; cum: Float64Array }
const choices = new Map<string, Choice | null>();

/** the pattern matching a call of model function `name` in a shape (null: not in the model) */
function callPattern(name: string): RegExp | null {
  const i = modelFunctions().indexOf(name);
  return i < 0 ? null : new RegExp(`(^|[ (])${i}([ ()*]|$)`);
}

function choice(key: string, recording: string | null, has: readonly string[], hasNot: readonly string[]): Choice | null {
  const id = `${key}|${recording ?? '*'}|${has.join(',')}|${hasNot.join(',')}`;
  let c = choices.get(id);
  if (c !== undefined) return c;
  c = null;
  const k = modelKey(key);
  const r = recording === null ? -1 : modelRecordings().findIndex((x) => x.name === recording);
  if (k && (r >= 0 || recording === null)) {
    const yes = has.map(callPattern);
    const no = hasNot.map(callPattern);
    const list = yes.includes(null) ? [] : k.variants.filter((v) => (r < 0 || (v.recs & (2 ** r)) !== 0)
      && yes.every((re) => re!.test(v.shape)) && no.every((re) => re === null || !re.test(v.shape)));
    if (list.length) {
      const cum = new Float64Array(list.length);
      let acc = 0;
      list.forEach((v, i) => { acc += v.count; cum[i] = acc; });
      c = { key: k, list, cum };
    }
  }
  choices.set(id, c);
  return c;
}

/**
 * A variant of `key` that recording `recording` (null: any recording) ran, whose tree calls every
 * function of `has` and none of `hasNot`, with its key; null when there is none.
 */
export function recordedModelVariant(rand: Prng, key: string, recording: string | null, has: readonly string[], hasNot: readonly string[] = []): { key: ModelKey; v: ModelVariant } | null {
  const c = choice(key, recording, has, hasNot);
  return c && { key: c.key, v: c.list[drawWeighted(c.cum, rand)] };
}

/** An index drawn with `rand` by the weights whose running sums are `cum` (non-empty). */
export function drawWeighted(cum: Float64Array, rand: Prng): number {
  const x = rand.next() * cum[cum.length - 1];
  let lo = 0, hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cum[mid] > x) hi = mid; else lo = mid + 1;
  }
  return lo;
}

/**
 * A compiled variant of `key` that recording `recording` (null: any recording) ran, whose tree calls every function of
 * `has` and none of `hasNot`; null when there is none.
 */
export function recordedVariant(rand: Prng, key: string, recording: string | null, has: readonly string[], hasNot: readonly string[] = []): CompiledPath | null {
  const r = recordedModelVariant(rand, key, recording, has, hasNot);
  return r && variantCode(r.key, r.v);
}
