/**
 * Shapes of the timeline API's answers (see analysis/timeline/window.py and timeline_event.py).
 * Every time is in ns relative to the trace's origin (its first start): epoch ns do not
 * survive a browser's doubles, relative ones do for 104 days.
 */
import type { Where } from '@/api/types'

export interface TrackInfo {
  id: number
  pid: string
  tid: string
  process_name: string
  thread_name: string
  is_device: boolean
  /** Rows the track needs (its deepest nesting + 1), the same for every window. */
  depth: number
  events: number
}

/** Drawn events: each at least one bucket long, as itself. */
export interface WindowEvents {
  index: number[]
  track: number[]
  start_ns: number[]
  dur_ns: number[]
  /** Into the answer's own `names`. */
  name: number[]
  /** Into `kinds`. */
  kind: number[]
  depth: number[]
}

/** Busy blocks: runs of buckets holding events shorter than a bucket, merged. */
export interface WindowBlocks {
  track: number[]
  depth: number[]
  start_ns: number[]
  dur_ns: number[]
  count: number[]
  busy_ns: number[]
}

export interface WindowFlows {
  src_track: number[]
  src_ns: number[]
  dst_track: number[]
  dst_ns: number[]
  /** Into `names`; -1 for a launch (runtime call -> device work). */
  cat: number[]
}

export interface WindowAnswer {
  version: number
  origin_ns: number
  t0_ns: number
  t1_ns: number
  width_px: number
  bucket_ns: number
  truncated: boolean
  tracks: TrackInfo[]
  kinds: string[]
  events: WindowEvents
  blocks: WindowBlocks
  flows: WindowFlows
  names: string[]
}

export interface WindowResponse extends Where {
  window: WindowAnswer
}

export interface SearchAnswer {
  version: number
  origin_ns: number
  total: number
  kinds: string[]
  events: Omit<WindowEvents, 'depth'>
  names: string[]
}

export interface SearchResponse extends Where {
  window: SearchAnswer
}

/** An event named by its index, with where it is drawn. */
export interface EventBrief {
  index: number
  name: string
  kind: string
  track: number
  start_ns: number
  dur_ns: number
}

export interface EventDetails extends EventBrief {
  category: string
  /** The row within its track (nesting depth). */
  depth: number
  track_info: Omit<TrackInfo, 'depth' | 'events'> | null
  args: {
    device?: number
    stream?: number
    grid?: string
    block?: string
    registers_per_thread?: number
    shared_memory_bytes?: number
    blocks_per_sm?: number
    occupancy_pct?: number
    external_id?: number
    correlation?: number
    input_dims?: string
    input_types?: string
    call_stack?: string[]
  }
  /** Enclosing ranges, nearest first. */
  parents: EventBrief[]
  /** Launch chain upwards: device work -> runtime call -> operator. */
  callers: EventBrief[]
  /** What this event launched (first 50), and how many in all. */
  launched: EventBrief[]
  launched_total: number
}

export interface EventResponse extends Where {
  event: EventDetails
}

/** The selected event as the track view draws it (from a click, a search hit or the URL). */
export interface Selection {
  index: number
  track: number
  depth: number
  start_ns: number
  dur_ns: number
  name: string
}
