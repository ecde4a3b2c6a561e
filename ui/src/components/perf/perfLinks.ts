/**
 * Where a roofline row leads: its longest call on the timeline (the window the advisor's
 * time ranges open, through the same `evidenceRoute`), its calls on the Operators page
 * (that name only), or a kernel row's kernel on the Kernels page. Pure, unit-tested.
 */
import type { RouteLocationRaw } from 'vue-router'
import type { PerfRow } from '@/api/perf'
import { MAX_SEARCH } from '@/components/tables/tableState'
import { evidenceRoute } from '@/evidence'

/** The timeline around the row's longest call (ns from the trace's origin); null without one. */
export function timelineRoute(row: PerfRow, runId: string, carry: Record<string, string>): RouteLocationRaw | null {
  const [start, end] = row.longest_call_ns
  if (typeof start !== 'number' || typeof end !== 'number' || end < start) return null
  return evidenceRoute({ kind: 'time_range', label: row.name, page: 'timeline', window_ns: [start, end] }, runId, carry)
}

/** The Operators page searched for exactly this name, its row selected (its calls one click on). */
export function operatorRoute(row: PerfRow, runId: string, carry: Record<string, string>): RouteLocationRaw | null {
  return { name: 'operators', params: { run: runId }, query: { ...carry, search: `"${row.name}"`, select: row.name } }
}

/**
 * The Kernels page searched for this kernel: its exact name in quotes, or, for a name
 * longer than a search may be (C++ signatures are), the name's first characters, which
 * still find it (with any kernel sharing them).
 */
export function kernelRoute(row: PerfRow, runId: string, carry: Record<string, string>): RouteLocationRaw {
  const search = row.name.length + 2 <= MAX_SEARCH ? `"${row.name}"` : row.name.slice(0, MAX_SEARCH)
  return { name: 'kernels', params: { run: runId }, query: { ...carry, search } }
}
