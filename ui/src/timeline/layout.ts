/**
 * Vertical layout of the track view: tracks grouped by process, each group a header
 * (name, device mark, collapse caret) over its threads/streams, each track as many rows as
 * its deepest nesting. A collapsed group is its header alone, with its tracks' top rows
 * drawn inside it as a summary. Every group and track is named: a process with neither name
 * nor pid (Kineto's trace-wide instant events, such as "Record Window End") and a track with
 * neither name nor id get the words the page gives (`LayoutWords`), never a bare "–". Tracks
 * the timeline holds no events of (a MindSpore `memory` track: allocation samples only, which
 * the timeline does not draw) are left out, and so is a group left without tracks. A group's
 * counter tracks (counters.ts: memory, device busy) come after its threads, one `counterH`
 * strip each, folded with the group. Several ranks stacked (ranks.ts) are one track list whose
 * tracks carry their rank's name: each rank's processes are groups of their own, labelled
 * with it. Pure, so the geometry and `rowAt` are unit-tested.
 */
import type { CounterSeries, TrackInfo } from './types'

/** A track as the layout takes it; a stacked rank's tracks carry the rank's name. */
export type LayoutTrack = TrackInfo & { rank?: string }

/** What groups tracks (and places counters, by their `group`): the pid, within its rank. */
export function groupKey(pid: string, rank?: string): string {
  return rank === undefined ? pid : `${rank}\u0000${pid}`
}

export const GEOMETRY = {
  /** The time axis strip at the top of the canvas (not scrolled). */
  axisH: 26,
  /** The label column at the left of the canvas. */
  labelW: 170,
  headerH: 24,
  rowH: 18,
  /** Space under a track's last row. */
  trackPad: 4,
  /** A counter track's height (its chart and its two label lines). */
  counterH: 36,
}
export type Geometry = typeof GEOMETRY

export interface TrackBox {
  track: LayoutTrack
  /** What the label column shows for it (trackLabel). */
  label: string
  /** Top of the track's first row, in content px (0 = top of the first group). */
  y: number
  rows: number
  height: number
}

/** A counter track: its series (the values come with each window) and where it is drawn. */
export interface CounterBox {
  /** counterKey of the series. */
  key: string
  series: Pick<CounterSeries, 'group' | 'name' | 'device' | 'unit'>
  /** The full name (counterLabel), and the counter's word alone (the label's first line). */
  label: string
  title: string
  y: number
  height: number
}

/** A counter to lay out: its series and its label (counterLabel, in the page's language). */
export interface CounterSpec {
  key: string
  series: CounterBox['series']
  label: string
  title: string
}

export interface GroupBox {
  /** Position among the groups (what the URL keeps for collapsed groups). */
  index: number
  /** groupKey: the pid (within its rank when ranks are stacked). */
  pid: string
  label: string
  isDevice: boolean
  collapsed: boolean
  y: number
  /** Header plus, when expanded, its tracks and counters. */
  height: number
  tracks: TrackBox[]
  /** Its counter tracks, after the tracks (height 0 when folded). */
  counters: CounterBox[]
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
export function groupTracks(tracks: LayoutTrack[]): { pid: string; tracks: LayoutTrack[] }[] {
  const groups = new Map<string, LayoutTrack[]>()
  for (const t of tracks) {
    if (t.events <= 0) continue
    const key = groupKey(t.pid, t.rank)
    const list = groups.get(key)
    if (list) list.push(t)
    else groups.set(key, [t])
  }
  return [...groups].map(([pid, list]) => ({ pid, tracks: list }))
}

export function layoutTracks(tracks: LayoutTrack[], collapsed: ReadonlySet<number>,
  geometry: Geometry = GEOMETRY, words: LayoutWords = PLAIN_WORDS, counters: readonly CounterSpec[] = []): Layout {
  const groups: GroupBox[] = []
  const byTrack = new Map<number, { group: GroupBox; box: TrackBox }>()
  let y = 0
  groupTracks(tracks).forEach((g, index) => {
    const folded = collapsed.has(index)
    const first = g.tracks[0]
    const label = processLabel(g.tracks.find((t) => t.process_name.trim()) ?? first, words.process)
    const group: GroupBox = {
      index, pid: g.pid,
      label: first.rank === undefined ? label : `${first.rank} · ${label}`,
      isDevice: g.tracks.some((t) => t.is_device),
      collapsed: folded, y, height: geometry.headerH, tracks: [], counters: [],
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
    for (const c of counters) {
      if (c.series.group !== g.pid) continue
      const height = folded ? 0 : geometry.counterH
      group.counters.push({ ...c, y: ty, height })
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
  | { type: 'counter'; group: GroupBox; counter: CounterBox }

/** What is at content height `y` (0 = top of the first group): a group header, a row or a counter. */
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
    const counter = group.counters.find((c) => y >= c.y && y < c.y + c.height)
    return counter ? { type: 'counter', group, counter } : null
  }
  return null
}

/**
 * The layout as text, `group: track | track | counter` per group, groups on their own lines:
 * what the track view shows in its label column, in order (the canvas's `data-layout`, for
 * tests).
 */
export function describeLayout(layout: Layout): string {
  return layout.groups
    .map((g) => `${g.label}: ${[...g.tracks, ...g.counters].map((b) => b.label).join(' | ')}`)
    .join('\n')
}
