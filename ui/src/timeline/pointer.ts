/**
 * What the pointer means on the track view, as pure functions of what the last frame drew:
 * the row and item under a point, where a zoom keeps its time in place, and what a click
 * does (fold a process group, select an event, zoom into a merged block, or clear the
 * selection). Out of the component, so the rules are unit-tested without a canvas.
 */
import { counterValue } from './drawCounters'
import { hitScenes, type Hit } from './hitTest'
import { GEOMETRY, rowAt, type Layout, type RowHit } from './layout'
import { counterTooltipText, type TooltipBox, type TooltipWords } from './tooltip'
import type { Selection } from './types'
import { pxToNs, spanOf, type Viewport } from './viewport'
import type { Choice } from './windowCache'

export interface Point {
  x: number
  y: number
}

/** The view as the eye sees it: hit-testing must use the answers the last frame drew. */
export interface Sight {
  layout: Layout | null
  view: Viewport | null
  scrollTop: number
  /** Width of the time area (the canvas less the label column), px. */
  timeW: number
  drawn: Pick<Choice, 'primary' | 'fill'>
}

export interface Found {
  row: RowHit | null
  hit: Hit | null
}

export type ClickAction =
  | { type: 'collapse'; collapsed: Set<number> }
  | { type: 'select'; selection: Selection | null }
  | { type: 'zoom'; view: Viewport }

/** Where in the time area `x` is (0..1), so a zoom keeps that time under it; the middle when off it. */
export function anchorOf(x: number | undefined, timeW: number): number {
  if (x === undefined || x < GEOMETRY.labelW) return 0.5
  return Math.min(1, Math.max(0, (x - GEOMETRY.labelW) / timeW))
}

/** The row at canvas point (x, y), and the event or block drawn there (a collapsed group: any of its tracks' top rows). */
export function hitAt(s: Sight, x: number, y: number): Found {
  if (!s.layout || !s.view || y < GEOMETRY.axisH) return { row: null, hit: null }
  const row = rowAt(s.layout, y - GEOMETRY.axisH + s.scrollTop)
  if (!row || x < GEOMETRY.labelW) return { row, hit: null }
  const depth = row.type === 'row' ? row.depth : 0
  const tracks = row.type === 'row' ? [row.box.track.id] : row.group.collapsed ? row.group.tracks.map((b) => b.track.id) : []
  const ns = pxToNs(s.view, s.timeW, x - GEOMETRY.labelW)
  const tol = (3 * spanOf(s.view)) / s.timeW
  for (const track of tracks) {
    const hit = hitScenes(s.drawn.primary, s.drawn.fill, track, depth, ns, tol)
    if (hit) return { row, hit }
  }
  return { row, hit: null }
}

/** The event of a hit as the page keeps it selected. */
export function selectionOf(hit: Hit): Selection {
  const a = hit.scene.answer
  const ev = a.events
  const i = hit.i
  return {
    index: ev.index[i], track: ev.track[i], depth: ev.depth[i],
    start_ns: ev.start_ns[i], dur_ns: ev.dur_ns[i], name: a.names[ev.name[i]] ?? '',
  }
}

/**
 * What a click at `p` does: a group's header (its label, or an empty spot of it) folds or
 * unfolds the group; a merged block zooms into it with a tenth of its length either side;
 * an event is selected; an empty spot of the time area clears the selection. Null: nothing.
 */
export function clickAction(found: Found, p: Point, collapsed: ReadonlySet<number>): ClickAction | null {
  const { row, hit } = found
  if (row?.type === 'header' && (p.x < GEOMETRY.labelW || !hit)) {
    const next = new Set(collapsed)
    if (next.has(row.group.index)) next.delete(row.group.index)
    else next.add(row.group.index)
    return { type: 'collapse', collapsed: next }
  }
  if (!hit) return p.x >= GEOMETRY.labelW && p.y > GEOMETRY.axisH ? { type: 'select', selection: null } : null
  if (hit.type === 'block') {
    const bl = hit.scene.answer.blocks
    const pad = bl.dur_ns[hit.i] * 0.1
    return { type: 'zoom', view: { t0: bl.start_ns[hit.i] - pad, t1: bl.start_ns[hit.i] + bl.dur_ns[hit.i] + pad } }
  }
  return { type: 'select', selection: selectionOf(hit) }
}

/** The pointer over an item, or over a group's label (a click does something there). */
export function clickable(found: Found, p: Point): boolean {
  return !!found.hit || (p.x < GEOMETRY.labelW && p.y > GEOMETRY.axisH)
}

/** The tooltip over a counter track's chart: its value at the pointer's time (null: not on one). */
export function counterTip(s: Sight, found: Found, p: Point, w: Pick<TooltipWords, 'at'>): TooltipBox | null {
  const row = found.row
  if (row?.type !== 'counter' || !s.view || p.x < GEOMETRY.labelW) return null
  const ns = pxToNs(s.view, s.timeW, p.x - GEOMETRY.labelW)
  const value = counterValue(row.counter.key, ns, s.drawn.primary, s.drawn.fill)
  return { ...p, ...counterTooltipText(row.counter, value, ns, w) }
}
