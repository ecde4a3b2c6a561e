import { describe, expect, it, vi } from 'vitest'
import type { CurvePoints } from '@/api/memory'
import { axisUnit, curveOption, debounce, mergeCurve, urlWindow, zoomToWindow } from '@/components/memory/memoryCurve'
import {
  fromElSort, pageRequest, readTableState, tableQueryChanges, toElOrder, type TableDefaults,
} from '@/components/tables/tableState'

function curve(ts: number[], v: (t: number) => number | null = (t) => t * 10): CurvePoints {
  return { ts_ns: ts, allocated_bytes: ts.map(v), reserved_bytes: ts.map(() => null) }
}

describe('mergeCurve', () => {
  const whole = curve([0, 100, 200, 300, 400, 500])

  it('keeps the whole curve outside the window and the detail inside it, in time order', () => {
    // the detail brings one sample before (100) and after (300) the window [150, 260)
    const detail = curve([100, 150, 160, 170, 255, 300], (t) => t + 1)
    const merged = mergeCurve(whole, detail, { t0: 150, t1: 260 })
    expect(merged.ts_ns).toEqual([0, 100, 150, 160, 170, 255, 300, 400, 500])
    expect(merged.allocated_bytes).toEqual([0, 101, 151, 161, 171, 256, 301, 4000, 5000])
    expect(merged.reserved_bytes).toHaveLength(merged.ts_ns.length)
  })

  it('is the whole curve without a window or before the detail arrives', () => {
    expect(mergeCurve(whole, null, { t0: 1, t1: 2 })).toBe(whole)
    expect(mergeCurve(whole, curve([1]), null)).toBe(whole)
  })

  it('drops the coarse samples a detail without samples would overlap', () => {
    const merged = mergeCurve(whole, curve([]), { t0: 150, t1: 350 })
    expect(merged.ts_ns).toEqual([0, 100, 400, 500])
  })
})

describe('zoomToWindow', () => {
  const range: [number, number] = [-1000, 9000]

  it('is null when the zoom shows the whole range (slider rounding included)', () => {
    expect(zoomToWindow(-1000, 9000, range)).toBeNull()
    expect(zoomToWindow(-1000.004, 9000.003, range)).toBeNull()
    expect(zoomToWindow(-5000, 20000, range)).toBeNull()
  })

  it('rounds outwards to whole ns and clamps to the range', () => {
    expect(zoomToWindow(10.6, 2000.2, range)).toEqual({ t0: 10, t1: 2001 })
    expect(zoomToWindow(-3000, 500, range)).toEqual({ t0: -1000, t1: 500 })
    expect(zoomToWindow(700, 300, range)).toEqual({ t0: 300, t1: 700 })
    expect(zoomToWindow(5, 5, range)).toEqual({ t0: 5, t1: 6 })
    expect(zoomToWindow(Number.NaN, 5, range)).toBeNull()
  })

  it('reads the URL window only when both edges are ordered', () => {
    expect(urlWindow(1, 2)).toEqual({ t0: 1, t1: 2 })
    expect(urlWindow(-5, 2)).toEqual({ t0: -5, t1: 2 })
    expect(urlWindow(2, 2)).toBeNull()
    expect(urlWindow(null, 2)).toBeNull()
  })
})

describe('curveOption', () => {
  const labels = { allocated: 'Allocated', reserved: 'Reserved', peak: 'Peak', time: 'Time' }
  const peak = { bytes: 2 * 1024 ** 3, ts_ns: 300, operator: 'aten::empty' }

  it('zooms to the window on a fixed axis and pins the peaks with their operator', () => {
    const MiB = 1024 ** 2
    const c = curve([0, 300, 600], (t) => t * MiB) // up to 600 MiB: the axis counts MiB
    c.reserved_bytes = [512 * MiB, 1024 * MiB, 1024 * MiB]
    const option = curveOption({ curve: c, range: [0, 600], win: { t0: 100, t1: 400 },
      peaks: { allocated: peak, reserved: null }, labels }) as Record<string, any>
    expect(option.xAxis).toMatchObject({ type: 'value', min: 0, max: 600 })
    expect(option.yAxis.name).toBe('GiB')
    for (const z of option.dataZoom) expect(z).toMatchObject({ startValue: 100, endValue: 400, filterMode: 'none' })
    expect(option.dataZoom.map((z: { type: string }) => z.type)).toEqual(['slider', 'inside'])
    const [allocated, reserved, peaks] = option.series
    expect(allocated).toMatchObject({ type: 'line', step: 'end' })
    expect(allocated.data).toEqual([[0, 0], [300, 300 / 1024], [600, 600 / 1024]])
    expect(reserved.data).toEqual([[0, 0.5], [300, 1], [600, 1]])
    expect(peaks.data).toEqual([{ value: [300, 2], name: 'Allocated 2.0 GiB · aten::empty', label: { position: 'left' } }])
  })

  it('draws only the reserved line where the allocated total is unknown (Ascend APP)', () => {
    const c: CurvePoints = { ts_ns: [0, 5], allocated_bytes: [null, null], reserved_bytes: [1, 2] }
    const option = curveOption({ curve: c, range: [0, 5], win: null,
      peaks: { allocated: null, reserved: null }, labels }) as Record<string, any>
    expect(option.series.map((s: { name: string }) => s.name)).toEqual(['Reserved', 'Peak'])
  })

  it('picks the binary unit of the largest value', () => {
    expect(axisUnit(3 * 1024 ** 3)).toEqual({ name: 'GiB', size: 1024 ** 3 })
    expect(axisUnit(1024 ** 3 - 1).name).toBe('MiB')
    expect(axisUnit(2048).name).toBe('KiB')
    expect(axisUnit(0).name).toBe('B')
  })

  it('leaves out the reserved line when no sample has it, and zooms to the range without a window', () => {
    const option = curveOption({ curve: curve([0, 5]), range: [0, 5], win: null,
      peaks: { allocated: null, reserved: null }, labels }) as Record<string, any>
    expect(option.series.map((s: { name: string }) => s.name)).toEqual(['Allocated', 'Peak'])
    expect(option.legend.data).toEqual(['Allocated', 'Peak'])
    expect(option.dataZoom[0]).toMatchObject({ startValue: 0, endValue: 5 })
    expect(option.series[1].data).toEqual([])
  })
})

describe('two tables on one page keep their state under prefixes', () => {
  const d: TableDefaults = { sort: 'bytes', size: 15, sortable: ['bytes', 'alloc_ns', 'duration_ns'] }
  const start = readTableState({}, d, 'e')

  it('reads only its own keys, with the page size of the memory tables', () => {
    const q = { esort: 'alloc_ns', eorder: 'asc', epage: '3', osort: 'frees', sort: 'duration_ns' }
    expect(readTableState(q, d, 'e')).toMatchObject({ sort: 'alloc_ns', order: 'asc', page: 3, size: 15 })
    expect(readTableState(q, d, 'o')).toMatchObject({ sort: 'bytes', order: 'desc', page: 1, size: 15 })
    expect(pageRequest(readTableState(q, d, 'e'))).toMatchObject({ offset: 30, limit: 15 })
  })

  it('leaves defaults out and goes back to page 1 on any change but the page', () => {
    expect(tableQueryChanges({ sort: 'alloc_ns', order: 'asc' }, start, d, 'e'))
      .toMatchObject({ esort: 'alloc_ns', eorder: 'asc', epage: undefined, esize: undefined })
    expect(tableQueryChanges({ page: 3 }, start, d, 'e')).toMatchObject({ epage: '3', esort: undefined })
    expect(Object.keys(tableQueryChanges({ search: 'x' }, start, d, 'o')).every((k) => k.startsWith('o'))).toBe(true)
  })

  it('maps Element Plus sort events both ways', () => {
    expect(fromElSort('duration_ns', 'ascending', d)).toEqual({ sort: 'duration_ns', order: 'asc' })
    expect(fromElSort('duration_ns', null, d)).toEqual({ sort: 'bytes', order: 'desc' })
    expect(toElOrder('asc')).toBe('ascending')
  })
})

describe('debounce', () => {
  it('calls once with the last arguments after a burst', () => {
    vi.useFakeTimers()
    const seen: number[] = []
    const f = debounce((n: number) => seen.push(n), 100)
    f(1)
    f(2)
    vi.advanceTimersByTime(99)
    f(3)
    vi.advanceTimersByTime(100)
    expect(seen).toEqual([3])
    f(4)
    f.cancel()
    vi.advanceTimersByTime(200)
    expect(seen).toEqual([3])
    vi.useRealTimers()
  })
})
