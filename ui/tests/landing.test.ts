/**
 * Evidence that lands: the query an evidence link writes (evidence.ts) read back as each
 * page's state: the timeline's marked range and tracks (urlState.ts) and the scroll that
 * shows them (landing.ts), the table row selected (selectRow.ts), the rank's page of the
 * cluster table, the roofline's exact-name filter.
 */
import { describe, expect, it } from 'vitest'
import type { Evidence } from '@/api/types'
import { rankPageOf } from '@/components/stages/cluster'
import { filterRows } from '@/components/perf/roofline'
import type { PerfRow } from '@/api/perf'
import { focusedPage, focusKey, pageOfRow, parseSelect, rowSelector } from '@/components/tables/selectRow'
import { evidenceRoute } from '@/evidence'
import { scrollToShow, tracksInView } from '@/timeline/landing'
import { GEOMETRY, layoutTracks } from '@/timeline/layout'
import type { TrackInfo } from '@/timeline/types'
import { parseMark, parseTimelineQuery, parseTracks } from '@/timeline/urlState'

function track(id: number, pid: string, depth: number, isDevice = false): TrackInfo {
  return { id, pid, tid: String(id), process_name: '', thread_name: '', is_device: isDevice, depth, events: 1 }
}
// host threads of 10 and 6 rows over a device of two streams, then the profiler's own track
// (ids as the server numbers them)
const TRACKS = [track(0, 'cpu', 10), track(1, 'cpu', 6), track(2, 'gpu', 3, true), track(3, 'gpu', 1, true),
  track(4, 'Traces', 20)]
const { headerH: H, rowH: R, trackPad: P } = GEOMETRY

/** The query an evidence item's link writes. */
function queryOf(ev: Evidence, carry: Record<string, string> = {}): Record<string, string> {
  const route = evidenceRoute(ev, 'run', carry) as { query: Record<string, string> } | null
  if (!route) throw new Error('no link')
  return route.query
}

describe('timeline landing', () => {
  const gap: Evidence = {
    kind: 'time_range', label: 'device idle', page: 'timeline', start_ns: 9e18, end_ns: 9e18 + 40_000,
    window_ns: [100_000, 140_000], tracks: [2, 0], event: 17,
  }

  it('reads back the range, tracks and event an evidence link writes', () => {
    const state = parseTimelineQuery(queryOf(gap))
    expect(state.mark).toEqual({ t0: 100_000, t1: 140_000 })
    expect(state.tracks).toEqual([2, 0])
    expect(state.event).toBe(17)
    // the window holds the range with its margin
    expect(state.window!.t0).toBeLessThan(100_000)
    expect(state.window!.t1).toBeGreaterThan(140_000)
  })

  it('leaves out what the server did not locate', () => {
    const q = queryOf({ ...gap, tracks: undefined, event: undefined })
    expect(q.mark).toBe('100000-140000')
    expect('tracks' in q || 'event' in q).toBe(false)
    expect(parseTimelineQuery(q).tracks).toEqual([])
  })

  it('ignores a mark or tracks that are not what a link writes', () => {
    expect(parseMark('5-3')).toBeNull()
    expect(parseMark('5-5')).toBeNull()
    expect(parseMark('-1-3')).toBeNull()
    expect(parseMark(['1-3', '4-9'])).toEqual({ t0: 1, t1: 3 })
    expect(parseTracks('3,x,1,3,,-2')).toEqual([3, 1])
    expect(parseTracks(undefined)).toEqual([])
    expect(parseTracks(Array.from({ length: 20 }, (_, i) => i).join(','))).toHaveLength(8)
  })

  it('reads the flows switch: all flows only for flows=all', () => {
    expect(parseTimelineQuery({ flows: 'all' }).allFlows).toBe(true)
    expect(parseTimelineQuery({}).allFlows).toBe(false)
    expect(parseTimelineQuery({ flows: '1' }).allFlows).toBe(false)
  })

  it('searches the timeline for a loader named without a range', () => {
    expect(queryOf({ kind: 'metric', label: 'l', page: 'timeline', name: 'DataLoader.__next__' }))
      .toEqual({ q: 'DataLoader.__next__' })
  })
})

describe('scrolling the tracks into view', () => {
  const layout = layoutTracks(TRACKS, new Set())
  // cpu header at 0, track 0 at H (10 rows), track 1 below; gpu header, track 2, track 3
  const gpuTop = H + 10 * R + P + 6 * R + P
  const track2 = gpuTop + H

  it('scrolls to the device group when it is below the screen', () => {
    expect(scrollToShow(layout, [2], 200, 0)).toBe(gpuTop)
    expect(tracksInView(layout, gpuTop, 200)).toEqual([2, 3])
  })

  it('stays put when the tracks are already in view', () => {
    expect(scrollToShow(layout, [2], 1000, 0)).toBe(0)
    expect(scrollToShow(layout, [2], 200, gpuTop - 10)).toBe(gpuTop - 10)
  })

  it('shows every marked track when they fit, else the first (the device) at the top', () => {
    // track 1 (host) and 2 (device) fit 6 + 3 rows and a header: from track 1's top
    const track1 = H + 10 * R + P
    expect(scrollToShow(layout, [2, 1], 300, 0)).toBe(track1)
    expect(tracksInView(layout, track1, 300)).toEqual(expect.arrayContaining([1, 2]))
    // track 0 (10 rows) and 2 do not fit 150 px: the device first
    expect(scrollToShow(layout, [2, 0], 150, 0)).toBe(gpuTop)
    expect(track2 - gpuTop).toBe(H)
  })

  it('shows a folded group by its header, and nothing for tracks it does not have', () => {
    const folded = layoutTracks(TRACKS, new Set([1]))
    expect(scrollToShow(folded, [3], 100, 0)).toBe(Math.min(gpuTop, folded.height - 100))
    expect(tracksInView(folded, 0, 10_000)).toEqual([0, 1, 4])
    expect(scrollToShow(layout, [42], 100, 0)).toBeNull()
    expect(scrollToShow(layout, [], 100, 0)).toBeNull()
  })

  it('never scrolls past the end', () => {
    // the last group (header at 424, 388 px) in a 400 px view: scrolled to the end, not past it
    expect(scrollToShow(layout, [4], 400, 0)).toBe(layout.height - 400)
    expect(layout.height - 400).toBeLessThan(424)
  })
})

describe('table landing', () => {
  it('selects the operator, kernel or type the evidence names, among the other rows', () => {
    const op = queryOf({ kind: 'operator', label: 'x', page: 'operators', name: 'aten::add' }, { worker: 'w' })
    expect(op).toEqual({ worker: 'w', select: 'aten::add' })
    const type = queryOf({ kind: 'operator_type', label: 'x', page: 'operators', name: 'MatMul' })
    expect(type).toEqual({ group: 'type', select: 'MatMul' })
    const kernel = queryOf({ kind: 'kernel', label: 'x', page: 'kernels', name: 'sgemm_128' })
    expect(kernel).toEqual({ select: 'sgemm_128' })
    const roof = queryOf({ kind: 'operator', label: 'x', page: 'roofline', name: 'aten::mm', window_ns: [1, 2] })
    expect(roof).toEqual({ select: 'aten::mm' })
  })

  it('asks the server for the page of the selected row until a page is chosen', () => {
    expect(focusKey('aten::mm', false)).toBe('aten::mm')
    expect(focusKey('aten::mm', true)).toBeUndefined() // the person paged on
    expect(focusKey('aten::mm', false, true)).toBeUndefined() // per call: no key
    expect(focusKey('', false)).toBeUndefined()
    expect(focusedPage({ offset: 40, limit: 20, focus_index: 3 })).toBe(3)
    expect(focusedPage({ offset: 0, limit: 20, focus_index: 0 })).toBe(1)
    expect(focusedPage({ offset: 40, limit: 20, focus_index: null })).toBeNull()
    expect(focusedPage({ offset: 40, limit: 20 })).toBeNull()
  })

  it('finds the page of the selected row in a table paged here (the roofline)', () => {
    const rows = Array.from({ length: 25 }, (_, i) => ({ name: i === 21 ? 'aten::mm' : `op${i}` }))
    expect(pageOfRow(rows, rowSelector<{ name: string }>('aten::mm', 'name')!, 10)).toBe(3)
    expect(pageOfRow(rows, rowSelector<{ name: string }>('nope', 'name')!, 10)).toBeNull()
  })

  it('highlights exactly the rows whose key is the selected name', () => {
    const rows = [{ name: 'aten::add' }, { name: 'aten::add_' }, { name: 'aten::add', type: 'x' }]
    const sel = rowSelector<{ name: string }>(parseSelect(op('aten::add').select), 'name')!
    expect(rows.map(sel)).toEqual([true, false, true])
    const byType = rowSelector<{ type: string }>('MatMul', 'type')!
    expect(byType({ type: 'MatMul' }) && !byType({ type: 'MatMul2' })).toBe(true)
    expect(rowSelector('', 'name')).toBeUndefined()
    expect(parseSelect(['a', 'b'])).toBe('a')
    expect(parseSelect(undefined)).toBe('')
  })

  it('filters the roofline rows by the exact name when quoted', () => {
    const rows = [{ name: 'aten::mm' }, { name: 'aten::mm_out' }] as PerfRow[]
    expect(filterRows(rows, { categories: [], dtypes: [], search: '"aten::mm"' }).map((r) => r.name)).toEqual(['aten::mm'])
    expect(filterRows(rows, { categories: [], dtypes: [], search: 'ATEN::MM' })).toHaveLength(2)
  })
})

function op(name: string): Record<string, string> {
  return queryOf({ kind: 'operator', label: 'x', page: 'operators', name })
}

describe('rank and link landing', () => {
  it('opens the link on the worker of its rank, the rank on the cluster table page that holds it', () => {
    const link = queryOf({ kind: 'metric', label: 'l', page: 'communication', name: '0-1 SDMA', rank: 1, worker: 'rank1' },
      { worker: 'rank0', span: '2' })
    expect(link).toEqual({ worker: 'rank1', link: '0-1 SDMA' })
    expect(queryOf({ kind: 'rank', label: 'r', page: 'cluster', rank: 120 })).toEqual({ rank: '120' })
    const rows = Array.from({ length: 130 }, (_, i) => ({ rank: i })) as Parameters<typeof rankPageOf>[0]
    expect([rankPageOf(rows, 0, 50), rankPageOf(rows, 49, 50), rankPageOf(rows, 50, 50), rankPageOf(rows, 120, 50)])
      .toEqual([1, 1, 2, 3])
    expect(rankPageOf(rows, 999, 50)).toBe(1)
  })
})
