/**
 * Vertical layout of the track view: tracks grouped by process, each group a header
 * (name, device mark, collapse caret) over its threads/streams, each track as many rows as
 * its deepest nesting. A collapsed group is its header alone, with its tracks' top rows
 * drawn inside it as a summary. Every group and track is named: a process with neither name
 * nor pid (Kineto's trace-wide instant events, such as "Record Window End") and a track with
 * neither name nor id get the words the page gives (`LayoutWords`), never a bare "–". Tracks
 * the timeline holds no events of (a MindSpore `memory` track: allocation samples only, which
 * the timeline does not draw) are left out, and so is a group left without tracks. Pure, so
 * the geometry and `rowAt` are unit-tested.
 */
import type { TrackInfo } from './types'

export const GEOMETRY = {
  /** The time axis strip at the top of the canvas (not scrolled). */
  axisH: 26,
  /** The label column at the left of the canvas. */
  labelW: 170,
  headerH: 24,
  rowH: 18,
  /** Space under a track's last row. */
  trackPad: 4,
}
export type Geometry = typeof GEOMETRY

export interface TrackBox {
  track: TrackInfo
  /** What the label column shows for it (trackLabel). */
  label: string
  /** Top of the track's first row, in content px (0 = top of the first group). */
  y: number
  rows: number
  height: number
}

export interface GroupBox {
  /** Position among the groups (what the URL keeps for collapsed groups). */
  index: number
  pid: string
  label: string
  isDevice: boolean
  collapsed: boolean
  y: number
  /** Header plus, when expanded, its tracks. */
  height: number
  tracks: TrackBox[]
}

export interface Layout {
  groups: GroupBox[]
  height: number
  byTrack: Map<number, { group: GroupBox; box: TrackBox }>
  geometry: Geometry
}

/** Names for what the trace leaves unnamed (the page's, in its language). */
export interface LayoutWords {
  /** A process with neither name nor pid: events of the whole trace. */
  process: string
  /** A track with neither name nor id. */
  track: string
}
export const PLAIN_WORDS: LayoutWords = { process: 'Trace-wide events', track: '(no thread)' }

/** A process's label: its name and pid ("CPU · 25738"), or whichever one it has. */
export function processLabel(track: Pick<TrackInfo, 'pid' | 'process_name'>, untitled = PLAIN_WORDS.process): string {
  const name = track.process_name.trim()
  const pid = track.pid.trim()
  if (name && pid && name !== pid) return `${name} · ${pid}`
  return name || pid || untitled
}

/** A thread's or stream's label: its name, else its id. */
export function trackLabel(track: Pick<TrackInfo, 'tid' | 'thread_name'>, untitled = PLAIN_WORDS.track): string {
  return track.thread_name.trim() || track.tid.trim() || untitled
}

/**
 * Tracks grouped by pid, groups and tracks in the order the trace lists them; tracks without
 * events left out (nothing to draw on them), and with them a group that has no other.
 */
export function groupTracks(tracks: TrackInfo[]): { pid: string; tracks: TrackInfo[] }[] {
  const groups = new Map<string, TrackInfo[]>()
  for (const t of tracks) {
    if (t.events <= 0) continue
    const list = groups.get(t.pid)
    if (list) list.push(t)
    else groups.set(t.pid, [t])
  }
  return [...groups].map(([pid, list]) => ({ pid, tracks: list }))
}

export function layoutTracks(tracks: TrackInfo[], collapsed: ReadonlySet<number>,
  geometry: Geometry = GEOMETRY, words: LayoutWords = PLAIN_WORDS): Layout {
  const groups: GroupBox[] = []
  const byTrack = new Map<number, { group: GroupBox; box: TrackBox }>()
  let y = 0
  groupTracks(tracks).forEach((g, index) => {
    const folded = collapsed.has(index)
    const first = g.tracks[0]
    const group: GroupBox = {
      index, pid: g.pid,
      label: processLabel(g.tracks.find((t) => t.process_name.trim()) ?? first, words.process),
      isDevice: g.tracks.some((t) => t.is_device),
      collapsed: folded, y, height: geometry.headerH, tracks: [],
    }
    let ty = y + geometry.headerH
    for (const track of g.tracks) {
      const rows = Math.max(1, track.depth)
      const height = folded ? 0 : rows * geometry.rowH + geometry.trackPad
      const box = { track, label: trackLabel(track, words.track), y: ty, rows, height }
      group.tracks.push(box)
      byTrack.set(track.id, { group, box })
      ty += height
    }
    group.height = ty - y
    y = ty
    groups.push(group)
  })
  return { groups, height: y, byTrack, geometry }
}

/** Where an item of `track` at `depth` is drawn: its row's top and height; null if unknown. */
export function rowBox(layout: Layout, track: number, depth: number): { y: number; h: number } | null {
  const found = layout.byTrack.get(track)
  if (!found) return null
  const g = layout.geometry
  if (found.group.collapsed) {
    // The summary strip inside the header: top rows only, thin.
    if (depth > 0) return null
    return { y: found.group.y + 4, h: g.headerH - 8 }
  }
  if (depth >= found.box.rows) return null
  return { y: found.box.y + depth * g.rowH, h: g.rowH }
}

export type RowHit =
  | { type: 'header'; group: GroupBox }
  | { type: 'row'; group: GroupBox; box: TrackBox; depth: number }

/** What is at content height `y` (0 = top of the first group): a group header or a row. */
export function rowAt(layout: Layout, y: number): RowHit | null {
  const g = layout.geometry
  for (const group of layout.groups) {
    if (y < group.y || y >= group.y + group.height) continue
    if (y < group.y + g.headerH) return { type: 'header', group }
    for (const box of group.tracks) {
      if (y >= box.y && y < box.y + box.height) {
        const depth = Math.floor((y - box.y) / g.rowH)
        return depth < box.rows ? { type: 'row', group, box, depth } : null
      }
    }
    return null
  }
  return null
}

/**
 * The layout as text, `group: track | track` per group, groups on their own lines: what the
 * track view shows in its label column, in order (the canvas's `data-layout`, for tests).
 */
export function describeLayout(layout: Layout): string {
  return layout.groups
    .map((g) => `${g.label}: ${g.tracks.map((b) => b.label).join(' | ')}`)
    .join('\n')
}
