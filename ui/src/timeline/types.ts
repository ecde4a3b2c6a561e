/**
 * Shapes of the timeline API's answers (see analysis/timeline/window.py and timeline_event.py).
 * Every time is in ns relative to the trace's origin (its first start): epoch ns do not
 * survive a browser's doubles, relative ones do for 104 days.
 */
import type {
  EventAnswer,
  SearchAnswer as SearchEnvelope,
  SearchWindow,
  TimelineAnswer,
  TimelineWindow,
} from '@/api/generated/api'

// Generated from `mindinsight_profiler/server/answers/timeline.py`: re-exports only.
export type { CounterSeries, EventBrief, EventDetails, TrackInfo, WindowBlocks, WindowEvents, WindowFlows } from '@/api/generated/api'
export type WindowAnswer = TimelineWindow
export type WindowResponse = TimelineAnswer
export type SearchAnswer = SearchWindow
export type SearchResponse = SearchEnvelope
export type EventResponse = EventAnswer

/** The selected event as the track view draws it (from a click, a search hit or the URL). */
export interface Selection {
  index: number
  track: number
  depth: number
  start_ns: number
  dur_ns: number
  name: string
}
