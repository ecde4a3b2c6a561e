/**
 * One window answer made ready to draw and to hit-test: items indexed per row (track,
 * depth) in start order, names resolved, flow ends placed on the rows of the events they
 * join. Built once per answer; drawing any later view from it is a transform, not a rebuild.
 */
import type { Viewport } from './viewport'
import { nearestInRow } from './rowSearch'
import { seriesByKey } from './counters'
import type { CounterSeries, TrackInfo, WindowAnswer } from './types'

export interface Scene {
  /** `t0:t1:width`: the request this answers. */
  key: string
  t0: number
  t1: number
  widthPx: number
  bucketNs: number
  truncated: boolean
  tracks: TrackInfo[]
  answer: WindowAnswer
  /** Per row key: event positions and block positions, each sorted by start. */
  rows: Map<number, { events: number[]; blocks: number[] }>
  /** Depth of the row each flow end lies on (0 when no drawn event starts there). */
  flowSrcDepth: number[]
  flowDstDepth: number[]
  /** Items (events + blocks): what drawing it costs, never more than the request's cap. */
  items: number
  /** Per track, the depths that hold items, deepest first. */
  depths: Map<number, number[]>
  /** The counter series of the window, by counterKey. */
  counters: Map<string, CounterSeries>
}

export function rowKey(track: number, depth: number): number {
  return track * 65536 + depth
}

export function sceneKey(t0: number, t1: number, widthPx: number): string {
  return `${t0}:${t1}:${widthPx}`
}

function sortByStart(list: number[], start: number[]): void {
  list.sort((a, b) => start[a] - start[b])
}

export function makeScene(answer: WindowAnswer): Scene {
  const rows = new Map<number, { events: number[]; blocks: number[] }>()
  const row = (key: number) => {
    let r = rows.get(key)
    if (!r) rows.set(key, (r = { events: [], blocks: [] }))
    return r
  }
  const ev = answer.events
  const starts = new Map<string, number>()
  for (let i = 0; i < ev.index.length; i++) {
    row(rowKey(ev.track[i], ev.depth[i])).events.push(i)
    const at = `${ev.track[i]}:${ev.start_ns[i]}`
    const known = starts.get(at)
    if (known === undefined || ev.depth[i] > known) starts.set(at, ev.depth[i])
  }
  const bl = answer.blocks
  for (let i = 0; i < bl.track.length; i++) row(rowKey(bl.track[i], bl.depth[i])).blocks.push(i)
  for (const r of rows.values()) {
    sortByStart(r.events, ev.start_ns)
    sortByStart(r.blocks, bl.start_ns)
  }
  const fl = answer.flows
  const depths = new Map<number, number[]>()
  for (const key of rows.keys()) {
    const track = Math.floor(key / 65536)
    const list = depths.get(track)
    if (list) list.push(key % 65536)
    else depths.set(track, [key % 65536])
  }
  for (const list of depths.values()) list.sort((a, b) => b - a)
  const partial = { answer, rows, depths }
  const depthAt = (track: number, ns: number) => starts.get(`${track}:${ns}`) ?? rowCovering(partial, track, ns)
  return {
    key: sceneKey(answer.t0_ns, answer.t1_ns, answer.width_px),
    t0: answer.t0_ns,
    t1: answer.t1_ns,
    widthPx: answer.width_px,
    bucketNs: answer.bucket_ns,
    truncated: answer.truncated,
    tracks: answer.tracks,
    answer,
    rows,
    flowSrcDepth: fl.src_track.map((t, i) => depthAt(t, fl.src_ns[i])),
    flowDstDepth: fl.dst_track.map((t, i) => depthAt(t, fl.dst_ns[i])),
    items: ev.index.length + bl.track.length,
    depths,
    counters: seriesByKey(answer.counters ?? []),
  }
}

/**
 * The deepest row of `track` with an item covering `ns` (0 when none): where a flow that
 * starts or ends inside merged work is drawn. Launches are leaves of the operator tree, so
 * the deepest covering row is the best guess for a runtime call merged into a block.
 */
export function rowCovering(scene: Pick<Scene, 'answer' | 'rows' | 'depths'>, track: number, ns: number): number {
  const ev = scene.answer.events
  const bl = scene.answer.blocks
  for (const depth of scene.depths.get(track) ?? []) {
    const row = scene.rows.get(rowKey(track, depth))
    if (!row) continue
    if (nearestInRow(row.events, ev.start_ns, ev.dur_ns, ns, 0)) return depth
    if (nearestInRow(row.blocks, bl.start_ns, bl.dur_ns, ns, 0)) return depth
  }
  return 0
}

/** Share of the view's time that the scene's window covers (0 to 1). */
export function coverage(scene: Pick<Scene, 't0' | 't1'>, v: Viewport): number {
  const span = v.t1 - v.t0
  if (!(span > 0)) return 0
  const overlap = Math.min(scene.t1, v.t1) - Math.max(scene.t0, v.t0)
  return Math.max(0, overlap) / span
}

/**
 * How sharp the scene looks at the view's zoom: 1 when its buckets are no wider than about
 * a pixel of the view, falling as it gets blockier (a coarse answer stretched by zooming in).
 */
export function sharpness(scene: Pick<Scene, 'bucketNs'>, v: Viewport, widthPx: number): number {
  const nsPerPx = (v.t1 - v.t0) / Math.max(widthPx, 1)
  return Math.min(1, (2 * nsPerPx) / Math.max(scene.bucketNs, 1))
}

/** Positions of the names matching `query` (case-insensitive substring), for highlighting. */
export function matchingNames(names: string[], query: string): Set<number> | null {
  const q = query.trim().toLowerCase()
  if (!q) return null
  const out = new Set<number>()
  names.forEach((n, i) => {
    if (n.toLowerCase().includes(q)) out.add(i)
  })
  return out
}
