/**
 * Where a finding's evidence leads: the dashboard page it names, with the query that opens
 * that page on the exact item. A time range opens the timeline on it (`t0`/`t1`, with a
 * margin), highlighted (`mark`), with the tracks that hold its work (`tracks`, the server's
 * `tracks`: the device's first) scrolled into view and its event selected (`event`). An
 * operator, kernel or type opens its table on the page that holds its row, the row selected
 * (`select`), a perf-model operator its rows on the Roofline page; a step, rank or link is chosen on its
 * page, a link on the worker of its rank (the server's `worker`), a collective kind (no rank)
 * its row on the Communication page (`collective`). Pure, so the mapping is
 * unit-tested without a browser.
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
  roofline: 'roofline',
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
    if (!ev.window_ns) {
      if (!ev.name) return null
      query.q = ev.name // no range (a loader named by its calls): the timeline searches it
      return { name: page, params: { run: runId }, query }
    }
    const [a, b] = ev.window_ns
    // A little margin around the range, so its edges are visible.
    const pad = Math.max(Math.round((b - a) * 0.05), 1000)
    query.t0 = String(Math.max(0, Math.floor(a - pad)))
    query.t1 = String(Math.ceil(b + pad))
    query.mark = `${Math.max(0, Math.floor(a))}-${Math.max(0, Math.ceil(b))}`
    if (ev.tracks?.length) query.tracks = ev.tracks.join(',')
    if (ev.event !== undefined && ev.event !== null) query.event = String(ev.event)
  } else if (page === 'operators' && ev.kind === 'operator_type' && ev.name) {
    query.group = 'type' // a type: its row in the by-type view
    query.select = ev.name
  } else if ((page === 'operators' || page === 'kernels' || page === 'roofline') && ev.name) {
    // its row among the others, on the page that holds it (operators, kernels: the server
    // answers that page for `focus`; the roofline's rows are paged here)
    query.select = ev.name
  } else if (page === 'modules' && ev.name) {
    query.search = ev.name
  } else if (page === 'step-trace' && ev.step !== undefined && ev.step !== null) {
    query.step = String(ev.step)
  } else if (page === 'cluster' && ev.rank !== undefined && ev.rank !== null) {
    query.rank = String(ev.rank)
  } else if (page === 'data-pipeline' && ev.name) {
    query.focus = ev.name
  } else if (page === 'communication' && ev.name && (ev.rank === undefined || ev.rank === null)) {
    query.collective = ev.name // a collective kind (message sizes): its row, marked
  } else if (page === 'communication' && ev.name) {
    query.link = ev.name // `src-dst transport`: the page lists that link first, marked
    if (ev.worker) query.worker = ev.worker // the link is its rank's: that worker's page
    if (ev.worker) delete query.span
  }
  return { name: page, params: { run: runId }, query }
}
