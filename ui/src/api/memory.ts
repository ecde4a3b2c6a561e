/**
 * The memory window answers (`/runs/<run>/memory/{curve,events,operators}`, docs/service.md).
 * Times are ns relative to the trace's origin (the timeline's zero) and may be negative.
 */
import type { Page, Where } from './types'

/** How releases are known: paired by address, from the input's table, or not at all. */
export type Pairing = 'address' | 'table' | 'none'
/** Why a table is empty although the request was fine. */
export type MemoryReason = 'no_memory_data' | 'no_allocation_events'

export interface MemoryDevice {
  device: string
  source: 'memory_events' | 'memory_record' | 'operator_memory'
  pairing: Pairing
  samples: number
  allocations: number
}

export interface MemoryPeak {
  bytes: number
  ts_ns: number
  operator: string | null
}

export interface CurvePoints {
  ts_ns: number[]
  allocated_bytes: (number | null)[]
  reserved_bytes: (number | null)[]
}

export interface MemoryCurveData extends CurvePoints {
  samples: number
  peak_allocated: MemoryPeak | null
  peak_reserved: MemoryPeak | null
}

export interface MemorySummary {
  allocations: number
  allocated_bytes: number
  frees: number
  freed_bytes: number
  start_allocated_bytes: number | null
  end_allocated_bytes: number | null
  /** The window's allocations still held at its end (null: releases unknown). */
  held_at_end: number | null
  held_at_end_bytes: number | null
  pairing: Pairing
}

export interface MemoryCurve extends Where {
  devices: MemoryDevice[]
  device: string | null
  reason: MemoryReason | null
  range_ns: [number, number] | null
  window_ns: [number, number] | null
  max_points: number
  curve: MemoryCurveData | null
  summary: MemorySummary | null
}

export type EventState = 'freed' | 'live' | 'unknown'

export interface MemoryEventRow {
  operator: string | null
  bytes: number
  alloc_ns: number
  release_ns: number | null
  duration_ns: number | null
  state: EventState
  addr: string | null
}

export interface MemoryOperatorRow {
  name: string
  allocations: number
  allocated_bytes: number
  frees: number
  freed_bytes: number
  increase_bytes: number
  largest_bytes: number
  peak_held_bytes: number | null
}

export interface MemoryPage<Row> extends Page<Row> {
  device: string | null
  reason: MemoryReason | null
  pairing: Pairing | null
  mode: 'allocated' | 'live'
  window_ns: [number, number] | null
  total_bytes: number
}

export const EVENT_SORTS = ['bytes', 'alloc_ns', 'release_ns', 'duration_ns', 'operator'] as const
export type EventSort = (typeof EVENT_SORTS)[number]
export const OPERATOR_SORTS = [
  'allocated_bytes', 'allocations', 'frees', 'freed_bytes', 'increase_bytes', 'largest_bytes', 'peak_held_bytes',
] as const
export type OperatorSort = (typeof OPERATOR_SORTS)[number]
export const EVENT_MODES = ['allocated', 'live'] as const
export type EventMode = (typeof EVENT_MODES)[number]
