/**
 * The memory window answers (`/runs/<run>/memory/{curve,events,operators}`, docs/service.md).
 * Times are ns relative to the trace's origin (the timeline's zero) and may be negative.
 * Generated from `mindinsight_profiler/server/answers/memory.py`: re-exports and constants.
 */
import type {
  MemoryCurveAnswer,
  MemoryDeviceRow,
  MemoryEventRow,
  MemoryPageFields,
  WindowCurve,
  WindowPeak,
  WindowSummary,
} from './generated/api'

export type { MemoryEventRow, MemoryOperatorRow } from './generated/api'

/** How releases are known: paired by address, from the input's table, or not at all. */
export type Pairing = MemoryDeviceRow['pairing']
/** Why a table is empty although the request was fine. */
export type MemoryReason = NonNullable<MemoryCurveAnswer['reason']>
export type MemoryDevice = MemoryDeviceRow
export type MemoryPeak = WindowPeak
export type CurvePoints = Pick<WindowCurve, 'ts_ns' | 'allocated_bytes' | 'reserved_bytes'>
export type MemoryCurveData = WindowCurve
export type MemorySummary = WindowSummary
export type MemoryCurve = MemoryCurveAnswer
export type EventState = MemoryEventRow['state']
/** A page of a memory table (`MemoryEventsPage`, `MemoryOperatorsPage` on the server). */
export type MemoryPage<Row> = MemoryPageFields & { rows: Row[] }

export const EVENT_SORTS = ['bytes', 'alloc_ns', 'release_ns', 'duration_ns', 'operator'] as const
export type EventSort = (typeof EVENT_SORTS)[number]
export const OPERATOR_SORTS = [
  'allocated_bytes', 'allocations', 'frees', 'freed_bytes', 'increase_bytes', 'largest_bytes', 'peak_held_bytes',
] as const
export type OperatorSort = (typeof OPERATOR_SORTS)[number]
export const EVENT_MODES = ['allocated', 'live'] as const
export type EventMode = (typeof EVENT_MODES)[number]
