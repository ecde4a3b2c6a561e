/**
 * The selected event and the search when ranks are stacked (ranks.ts): the details and the
 * search are asked of the rank's own worker with its own event index, and their answers
 * are put on the stack's axis (indices and tracks renumbered, times shifted), so the panel,
 * the outline and the launch arrows work as on one worker's timeline. The identity codec is
 * one worker's timeline. Pure, so unit-tested.
 */
import { splitIndex, stackedIndex, stackedTrack, type StackRank } from './ranks'
import type { EventBrief, EventResponse, SearchResponse } from './types'

export interface EventCodec {
  /** The request's parameters for the event drawn as `index`; null: none (unknown rank). */
  details: (index: number) => Record<string, string | number> | null
  /** The search's extra parameters (the worker asked). */
  search: () => Record<string, string>
  /** An event's answer, as drawn. */
  event: (r: EventResponse) => EventResponse
  /** The search's answer, as drawn. */
  hits: (r: SearchResponse) => SearchResponse
}

export const PLAIN_CODEC: EventCodec = {
  details: (index) => ({ index }),
  search: () => ({}),
  event: (r) => r,
  hits: (r) => r,
}

function brief<T extends EventBrief>(e: T, k: number, shift: number): T {
  return { ...e, index: stackedIndex(k, e.index), track: stackedTrack(k, e.track), start_ns: e.start_ns + shift }
}

/**
 * The codec of a stack: `stack()` is the stack once its clock is known (null before), and
 * `searched` the rank the search asks (the page's worker when it is stacked, else the first).
 */
export function stackCodec(stack: () => StackRank[] | null, searched: () => number): EventCodec {
  const rankOf = (worker: string) => stack()?.findIndex((r) => r.worker === worker) ?? -1
  return {
    details: (index) => {
      const { k, index: own } = splitIndex(index)
      const r = stack()?.[k]
      return r ? { index: own, worker: r.worker } : null
    },
    search: (): Record<string, string> => {
      const r = stack()?.[searched()]
      return r ? { worker: r.worker } : {}
    },
    event: (res) => {
      const k = rankOf(res.worker)
      if (k < 0) return res
      const shift = stack()![k].shift
      const d = res.event
      const mapped = { ...brief(d, k, shift), parents: d.parents.map((e) => brief(e, k, shift)),
        callers: d.callers.map((e) => brief(e, k, shift)), launched: d.launched.map((e) => brief(e, k, shift)) }
      return { ...res, event: mapped }
    },
    hits: (res) => {
      const k = rankOf(res.worker)
      if (k < 0) return res
      const shift = stack()![k].shift
      const ev = res.window.events
      const events = { ...ev, index: ev.index.map((i) => stackedIndex(k, i)),
        track: ev.track.map((t) => stackedTrack(k, t)), start_ns: ev.start_ns.map((s) => s + shift) }
      return { ...res, window: { ...res.window, events } }
    },
  }
}
