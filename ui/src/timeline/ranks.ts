/**
 * Several ranks of a run on one timeline: each rank's window is asked for as usual (the
 * `timeline` route with its `worker`), shifted onto one shared time axis by where the
 * server's clock alignment places the rank (`/runs/<run>/clock`: `shift_ns`), and the
 * answers are merged into one window answer that the track view draws like any other. Its
 * tracks carry their rank's name (each rank's processes are groups of their own, one rank
 * after another, see layout.ts); track ids and event indices are made unique by a stride per
 * rank (`stackedTrack`, `stackedIndex`), names and kinds are appended. Pure, so unit-tested.
 */
import { groupKey, type LayoutTrack } from './layout'
import type { WindowParams } from './trackSource'
import type { CounterSeries, WindowAnswer } from './types'

/** Rank k's track t is k * TRACK_STRIDE + t (track ids stay below a million). */
export const TRACK_STRIDE = 1 << 20
/** Rank k's event i is k * INDEX_STRIDE + i (event indices stay below 2^31). */
export const INDEX_STRIDE = 2 ** 32
/** Most ranks drawn at once: each is a request per window. */
export const MAX_RANKS = 8

/** A rank as the stack draws it: its worker, and where its zero lies on the shared axis. */
export interface StackRank {
  worker: string
  shift: number
}

export function stackedTrack(k: number, track: number): number {
  return k * TRACK_STRIDE + track
}

export function stackedIndex(k: number, index: number): number {
  return k * INDEX_STRIDE + index
}

/** The rank and its own index of a stacked event index. */
export function splitIndex(index: number): { k: number; index: number } {
  const k = Math.floor(index / INDEX_STRIDE)
  return { k, index: index - k * INDEX_STRIDE }
}

/** `ranks=0,2`: positions in the run's worker list, sorted, unique, below `count`. */
export function parseRanks(raw: unknown, count: number): number[] {
  const text = Array.isArray(raw) ? raw[0] : raw
  const out = new Set<number>()
  for (const part of (typeof text === 'string' ? text : '').split(',')) {
    if (/^\d{1,4}$/.test(part) && Number(part) < count) out.add(Number(part))
  }
  return [...out].sort((a, b) => a - b).slice(0, MAX_RANKS)
}

/** The rank's own window for a window of the shared axis; null when it starts after it. */
export function rankParams(params: WindowParams, shift: number): WindowParams | null {
  if (params.start_ns === undefined || params.end_ns === undefined) return { width_px: params.width_px }
  const start = Math.max(0, params.start_ns - shift)
  const end = params.end_ns - shift
  if (end <= start) return null
  const share = (end - start) / Math.max(1, params.end_ns - params.start_ns)
  return { start_ns: start, end_ns: end, width_px: Math.max(1, Math.round(params.width_px * share)) }
}

/** One rank's answer (null: nothing of it in the window) and where it goes. */
export interface RankAnswer extends StackRank {
  answer: WindowAnswer | null
}

function emptyAnswer(t0: number, t1: number, widthPx: number): WindowAnswer {
  return {
    version: 1, origin_ns: 0, t0_ns: t0, t1_ns: t1, width_px: widthPx, bucket_ns: 1, truncated: false,
    tracks: [], kinds: [], names: [], counters: [],
    events: { index: [], track: [], start_ns: [], dur_ns: [], name: [], kind: [], depth: [] },
    blocks: { track: [], depth: [], start_ns: [], dur_ns: [], count: [], busy_ns: [] },
    flows: { src_track: [], src_ns: [], dst_track: [], dst_ns: [], cat: [] },
  }
}

/** Append rank k's answer to `out`, shifted and renumbered. */
function append(out: WindowAnswer, k: number, part: RankAnswer, kindIndex: Map<string, number>): void {
  const a = part.answer
  if (!a) return
  const shift = part.shift
  const names = out.names.length
  const kinds = a.kinds.map((kind) => {
    if (!kindIndex.has(kind)) {
      kindIndex.set(kind, out.kinds.length)
      out.kinds.push(kind)
    }
    return kindIndex.get(kind)!
  })
  out.names.push(...a.names)
  out.bucket_ns = Math.max(out.bucket_ns, a.bucket_ns)
  out.truncated ||= a.truncated
  out.tracks.push(...a.tracks.map((t): LayoutTrack => ({ ...t, id: stackedTrack(k, t.id), rank: part.worker })))
  const ev = a.events
  const oe = out.events
  oe.index.push(...ev.index.map((i) => stackedIndex(k, i)))
  oe.track.push(...ev.track.map((t) => stackedTrack(k, t)))
  oe.start_ns.push(...ev.start_ns.map((s) => s + shift))
  oe.dur_ns.push(...ev.dur_ns)
  oe.name.push(...ev.name.map((n) => n + names))
  oe.kind.push(...ev.kind.map((i) => kinds[i]))
  oe.depth.push(...ev.depth)
  const bl = a.blocks
  const ob = out.blocks
  ob.track.push(...bl.track.map((t) => stackedTrack(k, t)))
  ob.depth.push(...bl.depth)
  ob.start_ns.push(...bl.start_ns.map((s) => s + shift))
  ob.dur_ns.push(...bl.dur_ns)
  ob.count.push(...bl.count)
  ob.busy_ns.push(...bl.busy_ns)
  const fl = a.flows
  const of = out.flows
  of.src_track.push(...fl.src_track.map((t) => stackedTrack(k, t)))
  of.src_ns.push(...fl.src_ns.map((s) => s + shift))
  of.dst_track.push(...fl.dst_track.map((t) => stackedTrack(k, t)))
  of.dst_ns.push(...fl.dst_ns.map((s) => s + shift))
  of.cat.push(...fl.cat.map((c) => (c >= 0 ? c + names : c)))
  out.counters.push(...(a.counters ?? []).map((c): CounterSeries => ({
    ...c, group: groupKey(c.group, part.worker), times: c.times.map((s) => s + shift),
  })))
}

/**
 * The ranks' answers as one answer for [t0, t1) of the shared axis at `widthPx` (what was
 * asked for: the track view keys its cache by it), in rank order.
 */
export function mergeRanks(parts: RankAnswer[], t0: number, t1: number, widthPx: number): WindowAnswer {
  const out = emptyAnswer(t0, t1, widthPx)
  const first = parts.find((p) => p.answer)?.answer
  if (first) out.version = first.version
  const kindIndex = new Map<string, number>()
  parts.forEach((part, k) => append(out, k, part, kindIndex))
  return out
}

/** Where the whole stack ends on the shared axis: the last rank's end. */
export function stackEnd(parts: RankAnswer[]): number {
  return Math.max(1, ...parts.map((p) => (p.answer ? p.shift + p.answer.t1_ns : 0)))
}
