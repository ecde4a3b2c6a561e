/**
 * The timeline's state in the URL query, so that a copied link (or an advisor's evidence
 * link, see evidence.ts) opens the same view: `t0`/`t1` (whole ns from the trace's
 * origin), `event` (the selected event's index), `q` (search text) and `fold` (collapsed
 * process groups, by position). An evidence link adds `mark` (`a-b`: the range it names,
 * highlighted) and `tracks` (track ids holding its work, the first scrolled into view).
 * `flows=all` draws every flow of the window (else only the selected event's).
 * Invalid values are ignored, never an error.
 */
import type { Viewport } from './viewport'

export interface TimelineUrlState {
  window: Viewport | null
  event: number | null
  q: string
  collapsed: Set<number>
  /** The evidence's range, highlighted; null if none. */
  mark: Viewport | null
  /** The evidence's tracks, the first brought into view; empty if none. */
  tracks: number[]
  /** `flows=all`: every flow of the window drawn, not only the selected event's. */
  allFlows: boolean
}

type Query = Record<string, unknown>

function first(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value
  return typeof v === 'string' ? v : undefined
}

/** A non-negative whole number written in digits only, else null. */
export function parseNs(raw: unknown): number | null {
  const text = first(raw)
  if (text === undefined || !/^\d{1,16}$/.test(text)) return null
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : null
}

export function parseWindow(query: Query): Viewport | null {
  const t0 = parseNs(query.t0)
  const t1 = parseNs(query.t1)
  return t0 !== null && t1 !== null && t1 > t0 ? { t0, t1 } : null
}

export function parseCollapsed(raw: unknown): Set<number> {
  const text = first(raw) ?? ''
  const out = new Set<number>()
  for (const part of text.split(',')) {
    if (/^\d{1,4}$/.test(part)) out.add(Number(part))
  }
  return out
}

/** `mark=a-b`: whole ns, b > a; else null. */
export function parseMark(raw: unknown): Viewport | null {
  const m = /^(\d{1,16})-(\d{1,16})$/.exec(first(raw) ?? '')
  if (!m) return null
  const t0 = Number(m[1])
  const t1 = Number(m[2])
  return Number.isSafeInteger(t0) && Number.isSafeInteger(t1) && t1 > t0 ? { t0, t1 } : null
}

/** Most tracks a link may mark (the server names at most 4). */
export const MAX_MARKED_TRACKS = 8

/** `tracks=3,1`: track ids in the link's order, without repeats or anything not an id. */
export function parseTracks(raw: unknown): number[] {
  const out: number[] = []
  for (const part of (first(raw) ?? '').split(',')) {
    if (/^\d{1,6}$/.test(part) && !out.includes(Number(part))) out.push(Number(part))
  }
  return out.slice(0, MAX_MARKED_TRACKS)
}

export function parseTimelineQuery(query: Query): TimelineUrlState {
  return {
    window: parseWindow(query),
    event: parseNs(query.event),
    q: (first(query.q) ?? '').slice(0, 200),
    collapsed: parseCollapsed(query.fold),
    mark: parseMark(query.mark),
    tracks: parseTracks(query.tracks),
    allFlows: first(query.flows) === 'all',
  }
}

/** `t0`/`t1` for the URL; left out (undefined) when the view is the default whole trace. */
export function windowQuery(view: Viewport | null, whole: Viewport | null): { t0?: string; t1?: string } {
  if (!view) return { t0: undefined, t1: undefined }
  const t0 = Math.max(0, Math.floor(view.t0))
  const t1 = Math.max(t0 + 1, Math.ceil(view.t1))
  if (whole && t0 <= whole.t0 && t1 >= whole.t1) return { t0: undefined, t1: undefined }
  return { t0: String(t0), t1: String(t1) }
}

export function formatCollapsed(collapsed: ReadonlySet<number>): string | undefined {
  const list = [...collapsed].sort((a, b) => a - b)
  return list.length ? list.join(',') : undefined
}
