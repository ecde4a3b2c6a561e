import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '@/api/client'
import { GEOMETRY, layoutTracks, rowBox, type Layout } from '@/timeline/layout'
import { PaintMarks } from '@/timeline/paintMarks'
import { anchorOf, clickAction, clickable, hitAt, selectionOf, type Sight } from '@/timeline/pointer'
import { makeScene } from '@/timeline/scene'
import { TrackSource, toApiError, type WindowParams } from '@/timeline/trackSource'
import type { WindowAnswer } from '@/timeline/types'
import { answer } from './timelineFixtures'

const { labelW: L, axisH: A } = GEOMETRY
const TIME_W = 500
const scene = makeScene(answer(0, 1000, TIME_W, 2))

function sight(collapsed: number[] = [], scrollTop = 0): Sight {
  return {
    layout: layoutTracks(scene.answer.tracks, new Set(collapsed)),
    view: { t0: 0, t1: 1000 }, scrollTop, timeW: TIME_W, drawn: { primary: scene, fill: null },
  }
}

/** The canvas point at time `ns` in the middle of row (track, depth). */
function at(layout: Layout, track: number, depth: number, ns: number, scrollTop = 0) {
  const box = rowBox(layout, track, depth)!
  return { x: L + (ns * TIME_W) / 1000, y: A + box.y + box.h / 2 - scrollTop }
}

describe('pointer', () => {
  it('anchors a zoom at the pointer, in the middle when it is off the time area', () => {
    expect(anchorOf(undefined, TIME_W)).toBe(0.5)
    expect(anchorOf(L - 1, TIME_W)).toBe(0.5)
    expect(anchorOf(L + 125, TIME_W)).toBe(0.25)
    expect(anchorOf(L + 900, TIME_W)).toBe(1)
  })

  it('finds the row and the event under the pointer, scrolled or not', () => {
    const s = sight()
    const p = at(s.layout!, 0, 1, 250)
    const found = hitAt(s, p.x, p.y)
    expect(found.row).toMatchObject({ type: 'row', depth: 1 })
    expect(found.hit?.type).toBe('event')
    expect(scene.answer.events.index[found.hit!.i]).toBe(11)
    const scrolled = { ...s, scrollTop: 10 }
    const q = at(s.layout!, 0, 1, 250, 10)
    expect(hitAt(scrolled, q.x, q.y).hit?.i).toBe(found.hit!.i)
    // the axis strip, the label column, nothing drawn yet
    expect(hitAt(s, p.x, A - 1)).toEqual({ row: null, hit: null })
    expect(hitAt(s, L - 1, p.y)).toMatchObject({ row: { type: 'row' }, hit: null })
    expect(hitAt({ ...s, layout: null }, p.x, p.y)).toEqual({ row: null, hit: null })
  })

  it('hits the top rows of a collapsed group in its header', () => {
    const s = sight([0])
    const header = A + s.layout!.groups[0].y + GEOMETRY.headerH / 2
    const found = hitAt(s, L + 50, header)
    expect(found.row?.type).toBe('header')
    expect(scene.answer.events.index[found.hit!.i]).toBe(10)
    // expanded, the header hits nothing
    expect(hitAt(sight(), L + 50, header).hit).toBeNull()
  })

  it('selects an event, zooms into a block, clears on empty space, folds on a header', () => {
    const s = sight()
    const p = at(s.layout!, 0, 1, 250)
    expect(clickAction(hitAt(s, p.x, p.y), p, new Set())).toEqual({
      type: 'select',
      selection: { index: 11, track: 0, depth: 1, start_ns: 100, dur_ns: 300, name: 'aten::conv2d' },
    })
    const b = at(s.layout!, 0, 2, 530)
    expect(clickAction(hitAt(s, b.x, b.y), b, new Set())).toEqual({
      type: 'zoom', view: { t0: 500 - 6.4, t1: 564 + 6.4 },
    })
    const empty = at(s.layout!, 0, 1, 480)
    expect(clickAction(hitAt(s, empty.x, empty.y), empty, new Set())).toEqual({ type: 'select', selection: null })
    // the label column of a row, and the axis, do nothing
    const label = { x: L - 10, y: p.y }
    expect(clickAction(hitAt(s, label.x, label.y), label, new Set())).toBeNull()
    const header = { x: 20, y: A + GEOMETRY.headerH / 2 }
    expect(clickAction(hitAt(s, header.x, header.y), header, new Set([3]))).toEqual({
      type: 'collapse', collapsed: new Set([3, 0]),
    })
    expect(clickAction(hitAt(s, header.x, header.y), header, new Set([0]))).toEqual({
      type: 'collapse', collapsed: new Set(),
    })
  })

  it('shows a pointer over items and group labels only', () => {
    const s = sight()
    const p = at(s.layout!, 0, 1, 250)
    expect(clickable(hitAt(s, p.x, p.y), p)).toBe(true)
    const empty = at(s.layout!, 0, 1, 480)
    expect(clickable(hitAt(s, empty.x, empty.y), empty)).toBe(false)
    expect(clickable({ row: null, hit: null }, { x: 10, y: A + 5 })).toBe(true)
    expect(clickable({ row: null, hit: null }, { x: 10, y: A - 5 })).toBe(false)
  })

  it('keeps the selected event with its name', () => {
    const hit = hitAt(sight(), ...Object.values(at(sight().layout!, 2, 0, 200)) as [number, number]).hit!
    expect(selectionOf(hit)).toMatchObject({ index: 14, track: 2, name: 'volta_scudnn_128x64_relu' })
  })
})

describe('paint marks', () => {
  function sink() {
    const measures: [string, number, number][] = []
    const cleared: string[] = []
    return {
      measures, cleared,
      measure: ((name: string, o: { start: number; end: number }) => {
        measures.push([name, o.start, o.end])
      }) as unknown as Performance['measure'],
      clearMeasures: (name?: string) => cleared.push(name ?? ''),
    }
  }

  it('marks the first frame with the view\'s own answer, once', () => {
    const s = sink()
    const marks = new PaintMarks(s)
    marks.painted(false, false, 5)
    marks.painted(true, false, 6)
    expect(marks.firstPaint).toBe(false)
    marks.painted(true, true, 7)
    marks.painted(true, true, 8)
    expect(marks.firstPaint).toBe(true)
    expect(s.measures).toEqual([['timeline-first-paint', 0, 7]])
  })

  it('measures a gesture from its first input to the cached and the exact frame', () => {
    const s = sink()
    const marks = new PaintMarks(s)
    marks.painted(true, true, 1)
    marks.input(10)
    marks.input(12)
    marks.painted(false, false, 13) // nothing to draw from yet
    marks.painted(true, false, 14)
    marks.painted(true, false, 15)
    marks.painted(true, true, 20)
    expect(s.measures.slice(1)).toEqual([['timeline-redraw-cached', 10, 14], ['timeline-redraw', 10, 20]])
  })

  it('clears the per-gesture marks every 2000 frames', () => {
    const s = sink()
    const marks = new PaintMarks(s)
    for (let i = 0; i < 4000; i++) marks.painted(false, false, i)
    expect(s.cleared).toEqual(['timeline-redraw', 'timeline-redraw-cached', 'timeline-redraw', 'timeline-redraw-cached'])
  })
})

describe('track source', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  function setup(fail: (p: WindowParams) => unknown = () => null) {
    const asked: WindowParams[] = []
    const landed: string[] = []
    const errors: (ApiError | null)[] = []
    const busy: boolean[] = []
    const load = async (p: WindowParams, signal: AbortSignal): Promise<WindowAnswer> => {
      asked.push(p)
      await Promise.resolve()
      if (signal.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' })
      const err = fail(p)
      if (err) throw err
      return answer(p.start_ns ?? 0, p.end_ns ?? 1000, p.width_px, 2)
    }
    const source = new TrackSource(load, {
      landed: (s) => landed.push(s.key), windowError: (e) => errors.push(e), busy: (b) => busy.push(b),
    })
    return { source, asked, landed, errors, busy }
  }

  it('pins the whole-trace answer and caches the window of a view', async () => {
    const { source, asked, landed, errors, busy } = setup()
    const base = await source.loadBase(500)
    expect(base?.t1_ns).toBe(1000)
    expect(source.cache.base?.key).toBe('0:1000:500')
    source.request({ t0: 100, t1: 300 }, 500, true)
    await vi.runAllTimersAsync()
    expect(asked).toEqual([{ width_px: 500 }, { start_ns: 100, end_ns: 300, width_px: 500 }])
    expect(landed).toEqual(['0:1000:500', '100:300:500'])
    expect(errors).toEqual([null])
    expect(busy).toEqual([true, false])
    // cached: not asked again
    source.request({ t0: 100, t1: 300 }, 500, true)
    expect(asked).toHaveLength(2)
  })

  it('reports a failed window as an ApiError and a failed base by rejecting', async () => {
    const { source, errors } = setup((p) => (p.start_ns === undefined ? new ApiError(409, 'not_ready', 'wait') : new Error('boom')))
    await expect(source.loadBase(500)).rejects.toMatchObject({ notReady: true })
    source.request({ t0: 1, t1: 2 }, 500, true)
    await vi.runAllTimersAsync()
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(ApiError)
    expect(errors[0]?.message).toContain('boom')
  })

  it('forgets the base answer once cancelled', async () => {
    const { source, landed } = setup()
    const pending = source.loadBase(500)
    source.cancel()
    expect(await pending).toBeNull()
    expect(landed).toEqual([])
    expect(toApiError('x')).toMatchObject({ status: 0, code: 'client' })
  })
})
