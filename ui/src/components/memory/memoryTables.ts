/**
 * The memory page's two server-side tables as data: the allocation events of the zoomed
 * window (the PyTorch plugin's "memory events") and the statistics per operator ("memory
 * statistics"). Each names its endpoint, its sorts (the URL state's defaults), its columns
 * and its words; MemoryTable.vue draws either, so the two stay alike. A column's `kind`
 * says how its cell is written; the sort order of a first click follows the meaning
 * (names A to Z, times from the start, sizes and counts largest first).
 */
import { EVENT_SORTS, OPERATOR_SORTS } from '@/api/memory'
import type { TableDefaults } from '@/components/tables/tableState'
import { formatBytes, formatCount, formatNs } from '@/format'
import type { MessageKey } from '@/i18n'

/** Rows per page of both tables. */
export const PAGE_SIZE = 15

export type MemoryCellKind = 'bytes' | 'count' | 'ns' | 'operator' | 'operatorLink' | 'state'
export type FirstOrder = 'ascending' | 'descending'

export interface MemoryColumn {
  prop: string
  label: MessageKey
  kind: MemoryCellKind
  width?: number
  minWidth?: number
  /** The order of a first click on the header; absent: the column does not sort. */
  first?: FirstOrder
  /** A title on the header, for a figure that needs words to be read right. */
  hint?: MessageKey
  /** Shown only where the device records releases: without them the figure means nothing. */
  needsReleases?: boolean
}

export interface MemoryTableSpec {
  /** The test hooks' prefix: `<name>-card`, `-total`, `-search`, `-table`, `-pager`. */
  name: 'events' | 'operators'
  endpoint: 'memory/events' | 'memory/operators'
  title: MessageKey
  total: MessageKey
  hint: MessageKey
  empty: MessageKey
  defaults: TableDefaults
  columns: MemoryColumn[]
}

export const EVENTS_TABLE: MemoryTableSpec = {
  name: 'events',
  endpoint: 'memory/events',
  title: 'memory.events.title',
  total: 'memory.events.total',
  hint: 'memory.events.hint',
  empty: 'memory.events.noneInWindow',
  defaults: { sort: 'bytes', size: PAGE_SIZE, sortable: EVENT_SORTS },
  columns: [
    { prop: 'operator', label: 'memory.events.operator', kind: 'operator', minWidth: 150, first: 'ascending' },
    { prop: 'bytes', label: 'memory.events.size', kind: 'bytes', width: 92, first: 'descending' },
    { prop: 'alloc_ns', label: 'memory.events.allocTime', kind: 'ns', width: 112, first: 'ascending' },
    { prop: 'release_ns', label: 'memory.events.releaseTime', kind: 'ns', width: 112, first: 'ascending' },
    { prop: 'duration_ns', label: 'memory.events.duration', kind: 'ns', width: 104, first: 'descending' },
    { prop: 'state', label: 'memory.events.state', kind: 'state', width: 92 },
  ],
}

export const OPERATORS_TABLE: MemoryTableSpec = {
  name: 'operators',
  endpoint: 'memory/operators',
  title: 'memory.operators.title',
  total: 'memory.operators.total',
  hint: 'memory.operators.hint',
  empty: 'memory.operators.noneInWindow',
  defaults: { sort: 'allocated_bytes', size: PAGE_SIZE, sortable: OPERATOR_SORTS },
  columns: [
    { prop: 'name', label: 'memory.operators.name', kind: 'operatorLink', minWidth: 150 },
    { prop: 'allocations', label: 'memory.operators.allocations', kind: 'count', width: 82, first: 'descending' },
    { prop: 'allocated_bytes', label: 'memory.operators.allocated', kind: 'bytes', width: 96, first: 'descending' },
    { prop: 'frees', label: 'memory.operators.frees', kind: 'count', width: 72, first: 'descending' },
    { prop: 'increase_bytes', label: 'memory.operators.increase', kind: 'bytes', width: 116, first: 'descending' },
    { prop: 'largest_bytes', label: 'memory.operators.largest', kind: 'bytes', width: 90, first: 'descending' },
    {
      prop: 'peak_held_bytes', label: 'memory.operators.peakHeld', kind: 'bytes', width: 100, first: 'descending',
      hint: 'memory.operators.peakHeldHint', needsReleases: true,
    },
  ],
}

/** The columns to show: those that need releases are left out where none are recorded. */
export function shownColumns(spec: MemoryTableSpec, noReleases: boolean): MemoryColumn[] {
  return noReleases ? spec.columns.filter((c) => !c.needsReleases) : spec.columns
}

/** Both orders of a sortable column, its first click's first. */
export function sortOrders(c: MemoryColumn): FirstOrder[] {
  return c.first === 'descending' ? ['descending', 'ascending'] : ['ascending', 'descending']
}

/** A figure's cell text (the other kinds are drawn by MemoryTable.vue). */
export function formatFigure(kind: MemoryCellKind, value: unknown): string {
  const n = typeof value === 'number' ? value : null
  if (kind === 'bytes') return formatBytes(n)
  if (kind === 'count') return formatCount(n)
  if (kind === 'ns') return formatNs(n)
  return value === null || value === undefined ? '' : String(value)
}
