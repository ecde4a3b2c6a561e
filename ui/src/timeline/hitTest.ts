/**
 * What is under the mouse: the row from the layout, then the item of that row nearest to
 * the pointer's time by binary search (items of one row do not overlap: they are nested
 * ranges of one depth, or merged buckets). Events win over merged blocks; an item a pixel
 * or two wide is hit within a small tolerance, so thin kernels can be clicked.
 */
import { nearestInRow } from './rowSearch'
import { rowKey, type Scene } from './scene'

export type Hit = { type: 'event'; scene: Scene; i: number } | { type: 'block'; scene: Scene; i: number }

/** The event or block of `scene` on (track, depth) at time `ns`, within `tolNs`. */
export function hitTest(scene: Scene, track: number, depth: number, ns: number, tolNs: number): Hit | null {
  const row = scene.rows.get(rowKey(track, depth))
  if (!row) return null
  const ev = scene.answer.events
  const e = nearestInRow(row.events, ev.start_ns, ev.dur_ns, ns, tolNs)
  if (e && e[1] === 0) return { type: 'event', scene, i: e[0] }
  const bl = scene.answer.blocks
  const b = nearestInRow(row.blocks, bl.start_ns, bl.dur_ns, ns, tolNs)
  if (b && b[1] === 0) return { type: 'block', scene, i: b[0] }
  if (e && (!b || e[1] <= b[1])) return { type: 'event', scene, i: e[0] }
  if (b) return { type: 'block', scene, i: b[0] }
  return null
}

/**
 * Hit-test the scenes drawn at `ns`: the primary one where it covers that time, else the
 * one filling in around it.
 */
export function hitScenes(primary: Scene | null, fill: Scene | null, track: number, depth: number,
  ns: number, tolNs: number): Hit | null {
  const inPrimary = primary && ns >= primary.t0 && ns <= primary.t1
  const scene = inPrimary ? primary : fill ?? primary
  return scene ? hitTest(scene, track, depth, ns, tolNs) : null
}
