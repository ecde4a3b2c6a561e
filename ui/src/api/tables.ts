/**
 * Answers of the table views (`operators`, `kernels`, `modules`, `diff`; docs/service.md).
 * Times are microseconds (`*_us`), as in the report.
 */
import type { Page, Section, Where } from './types'

/** A page of a table view: the rows, and sums of the additive columns over all matches. */
export interface TablePage<Row> extends Page<Row> {
  sums?: Record<string, number>
  /** Operator types only: the time they are ranked by (`device_self_ns`, `host_self_ns`, `total_ns`). */
  by?: string
}

/** Operators grouped by name (and input shapes or call stack). */
export interface OperatorRow {
  name: string
  calls: number
  host_self_us: number
  host_total_us: number
  device_self_us: number
  device_total_us: number
  tc_eligible: boolean
  tc_self_ratio: number
  tc_total_ratio: number
  has_call_stack: boolean
  input_shape?: string
  call_stack?: string
}

export interface OperatorTypeRow {
  type: string
  calls: number
  total_us: number
  mean_us: number
  percent: number
}

/**
 * One operator call (`group_by=instance`); for an input that records operator instances
 * only as a table (legacy MindSpore), one instance with its `calls` and no start or host time.
 */
export interface InstanceRow {
  name: string
  type: string
  start_us: number | null
  /** Start on the timeline: microseconds from the trace's origin. */
  offset_us: number | null
  host_self_us: number | null
  host_total_us: number | null
  device_self_us: number
  device_total_us: number
  calls?: number
}

export interface KernelRow {
  name: string
  tc_used: boolean
  calls: number
  total_us: number
  mean_us: number
  min_us: number
  max_us: number
  blocks_per_sm: number | null
  occupancy: number | null
  /** `group_by=name_op_launch` only. */
  operator?: string
  grid?: string
  block?: string
  registers_per_thread?: number | null
  shared_memory?: number | null
}

export interface ModuleRow {
  name: string
  parent: string | null
  occurrences: number
  host_self_us: number
  host_total_us: number
  device_self_us: number
  device_total_us: number
}

export type ModulesAnswer = Section<{ modules: ModuleRow[] }>

/** One compared row: this run (before) against the other (after). */
export interface Change {
  name: string
  before_us: number
  after_us: number
  delta_us: number
  ratio: number | null
}

export interface DiffAnswer extends Where {
  other: Where
  step: Change
  breakdown: Change[]
  operators: Record<string, Change[]>
  kernels: Record<string, Change[]>
}
