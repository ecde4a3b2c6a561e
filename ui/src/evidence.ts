/**
 * Where a finding's evidence leads: the dashboard page it names, with the query that opens
 * that page on the item (an operator searched, a step chosen, a time window on the
 * timeline). Pure, so the mapping is unit-tested without a browser.
 */
import type { RouteLocationRaw } from 'vue-router'
import type { Evidence } from '@/api/types'

const PAGE_ROUTES: Record<string, string> = {
  operators: 'operators',
  kernels: 'kernels',
  step_trace: 'step-trace',
  timeline: 'timeline',
  data_pipeline: 'data-pipeline',
  memory: 'memory',
  communication: 'communication',
  cluster: 'cluster',
  modules: 'modules',
}

/** Route of the page that shows `ev`, keeping the run and `carry` (worker, span); null if none. */
export function evidenceRoute(
  ev: Evidence,
  runId: string,
  carry: Record<string, string> = {},
): RouteLocationRaw | null {
  const page = ev.page ? PAGE_ROUTES[ev.page] : ev.window_ns ? 'timeline' : undefined
  if (!page) return null
  const query: Record<string, string> = { ...carry }
  if (page === 'timeline') {
    if (!ev.window_ns) return null
    const [a, b] = ev.window_ns
    // A little margin around the range, so its edges are visible.
    const pad = Math.max(Math.round((b - a) * 0.05), 1000)
    query.t0 = String(Math.max(0, Math.floor(a - pad)))
    query.t1 = String(Math.ceil(b + pad))
  } else if (page === 'operators' && ev.kind === 'operator_type' && ev.name) {
    query.group = 'type' // a type: its row in the by-type view
    query.search = ev.name
  } else if (page === 'operators' && ev.kind === 'operator' && ev.name) {
    query.search = `"${ev.name}"` // one operator's name: that name only (not aten::add_ for aten::add)
  } else if ((page === 'operators' || page === 'kernels' || page === 'modules') && ev.name) {
    query.search = ev.name
  } else if (page === 'step-trace' && ev.step !== undefined) {
    query.step = String(ev.step)
  } else if (page === 'cluster' && ev.rank !== undefined) {
    query.rank = String(ev.rank)
  } else if (page === 'data-pipeline' && ev.name) {
    query.focus = ev.name
  } else if (page === 'communication' && ev.name) {
    query.link = ev.name // `src-dst transport`: the page lists that link first, marked
  }
  return { name: page, params: { run: runId }, query }
}
