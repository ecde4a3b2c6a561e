/**
 * Which ranks the timeline stacks (`ranks=0,1` in the URL: positions in the run's worker
 * list) and the loader that draws them on one time axis (ranks.ts). Two or more ranks are
 * stacked; one rank chosen is that worker's own timeline, exactly as before (the URL's
 * `worker`). Each rank's place on the shared axis comes from the server's clock alignment
 * (`/runs/<run>/clock`), asked for once per run and span.
 */
import { computed, shallowRef, watch } from 'vue'
import { useRoute } from 'vue-router'
import { getJson } from '@/api/client'
import type { ClockAnswer } from '@/api/generated/api'
import { useRunContext } from '@/composables/useRunContext'
import type { QueryChanges } from './queryWriter'
import { PLAIN_CODEC, stackCodec, type EventCodec } from './rankEvents'
import { mergeRanks, parseRanks, rankParams, stackEnd, type StackRank } from './ranks'
import type { WindowLoader, WindowParams } from './trackSource'
import type { WindowAnswer } from './types'

/** The view's state that means nothing on another axis or trace: dropped on a switch. */
const PER_AXIS: QueryChanges = { t0: undefined, t1: undefined, event: undefined, mark: undefined, tracks: undefined }

export function useRankStack(write: (changes: QueryChanges) => void) {
  const ctx = useRunContext()
  const route = useRoute()
  /** The run's workers, in the run's order (the worker menu's). */
  const workers = computed(() => [...new Set((ctx.run.data.value?.inputs ?? []).map((i) => i.worker))])
  const ranks = computed(() => parseRanks(route.query.ranks, workers.value.length))
  const stacked = computed(() => ranks.value.length > 1)
  /** The stacked workers, in rank order. */
  const chosen = computed(() => (stacked.value ? ranks.value.map((k) => workers.value[k]) : []))
  /** Identifies what is drawn: another stack is another source. */
  const key = computed(() => (stacked.value ? ranks.value.join(',') : ''))

  let clock: { key: string; answer: Promise<ClockAnswer> } | null = null
  function clockOf(): Promise<ClockAnswer> {
    const id = `${ctx.runId.value}|${ctx.span.value ?? ''}`
    if (clock?.key !== id) {
      const answer = getJson<ClockAnswer>(`runs/${ctx.runId.value}/clock`, { span: ctx.span.value })
      clock = { key: id, answer }
      answer.catch(() => {
        if (clock?.answer === answer) clock = null // asked again next time (e.g. not ready)
      })
    }
    return clock.answer
  }

  /** The stack once its clock is known (what the selected event and the search are mapped by). */
  const known = shallowRef<StackRank[] | null>(null)
  watch(key, () => {
    known.value = null
  })

  async function stackOf(): Promise<StackRank[]> {
    const c = await clockOf()
    const found = chosen.value.map((worker) => ({ worker, shift: c.shift_ns[c.workers.indexOf(worker)] ?? 0 }))
    if (JSON.stringify(found) !== JSON.stringify(known.value)) known.value = found
    return found
  }

  const codec = computed<EventCodec>(() => {
    if (!stacked.value) return PLAIN_CODEC
    return stackCodec(() => known.value, () => Math.max(0, chosen.value.indexOf(ctx.worker.value ?? '')))
  })

  /** The stacked ranks' window: one request per rank (`one`), merged. */
  function loader(one: (worker: string, params: WindowParams, signal: AbortSignal) => Promise<WindowAnswer>): WindowLoader {
    return async (params, signal) => {
      const stack = await stackOf()
      const answers = await Promise.all(stack.map((r) => {
        const own = rankParams(params, r.shift)
        return own ? one(r.worker, own, signal) : Promise.resolve(null)
      }))
      const parts = stack.map((r, k) => ({ ...r, answer: answers[k] }))
      const t0 = params.start_ns ?? 0
      return mergeRanks(parts, t0, params.end_ns ?? stackEnd(parts), params.width_px)
    }
  }

  /** Choose the ranks: two or more are stacked, one is that worker's own timeline. */
  function choose(next: number[]): void {
    const list = [...new Set(next)].sort((a, b) => a - b)
    if (list.join(',') === ranks.value.join(',')) return
    if (list.length === 1) write({ ...PER_AXIS, ranks: undefined, worker: workers.value[list[0]] })
    else write({ ...PER_AXIS, ranks: list.length ? list.join(',') : undefined })
  }


  return { workers, ranks, stacked, chosen, key, known, codec, loader, choose }
}
