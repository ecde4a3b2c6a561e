/**
 * The memory page's chart, as pure functions (unit-tested without a browser): the whole
 * curve outside the zoomed window merged with the window's detailed curve, the window a
 * dataZoom state stands for, and the ECharts option with its peaks and zoom controls.
 */
import type { CurvePoints, MemoryPeak } from '@/api/memory'
import type { ChartOption } from '@/components/echarts'
import { formatBytes, formatNs } from '@/format'

/** A time window [t0, t1) in ns from the trace's origin. */
export interface TimeWindow {
  t0: number
  t1: number
}

/**
 * The whole (coarse) curve outside `win` and the detailed curve inside it, in time order.
 * The detailed answer carries one sample before and after the window, so the line meets
 * the coarse curve at the window's edges.
 */
export function mergeCurve(whole: CurvePoints, detail: CurvePoints | null, win: TimeWindow | null): CurvePoints {
  if (!detail || !win) return whole
  const out: CurvePoints = { ts_ns: [], allocated_bytes: [], reserved_bytes: [] }
  const push = (src: CurvePoints, i: number) => {
    out.ts_ns.push(src.ts_ns[i])
    out.allocated_bytes.push(src.allocated_bytes[i])
    out.reserved_bytes.push(src.reserved_bytes[i])
  }
  const lo = detail.ts_ns.length ? Math.min(win.t0, detail.ts_ns[0]) : win.t0
  const hi = detail.ts_ns.length ? Math.max(win.t1, detail.ts_ns[detail.ts_ns.length - 1]) : win.t1
  let i = 0
  for (; i < whole.ts_ns.length && whole.ts_ns[i] < lo; i++) push(whole, i)
  for (let j = 0; j < detail.ts_ns.length; j++) push(detail, j)
  for (; i < whole.ts_ns.length; i++) if (whole.ts_ns[i] > hi) push(whole, i)
  return out
}

/**
 * The window a zoom state shows, in whole ns within `range`; null when it shows all of it
 * (no window in the URL). A span shorter than 1 ns is widened to 1 ns.
 */
export function zoomToWindow(start: number, end: number, range: [number, number]): TimeWindow | null {
  if (!Number.isFinite(start) || !Number.isFinite(end)) return null
  const [r0, r1] = range
  const slack = (r1 - r0) * 1e-6 // the slider's pixel rounding at the edges
  const t0 = Math.max(r0, Math.floor(Math.min(start, end)))
  const t1 = Math.min(r1, Math.ceil(Math.max(start, end)))
  if (t0 <= r0 + slack && t1 >= r1 - slack) return null
  return { t0, t1: Math.max(t1, t0 + 1) }
}

/** The window in the URL, if both edges are there and ordered. */
export function urlWindow(t0: number | null, t1: number | null): TimeWindow | null {
  return t0 !== null && t1 !== null && t1 > t0 ? { t0, t1 } : null
}

export interface CurveLabels {
  allocated: string
  reserved: string
  peak: string
  time: string
}

const UNITS: [string, number][] = [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024], ['B', 1]]

/** The binary unit of the axis, so its ticks are round numbers of GiB, MiB, ... */
export function axisUnit(maxBytes: number): { name: string; size: number } {
  const [name, size] = UNITS.find(([, s]) => maxBytes >= s) ?? UNITS[UNITS.length - 1]
  return { name, size }
}

function points(c: CurvePoints, key: 'allocated_bytes' | 'reserved_bytes', unit: number): [number, number | null][] {
  return c.ts_ns.map((t, i) => {
    const v = c[key][i]
    return [t, v === null ? null : v / unit]
  })
}

/** A pinned peak, its label on the side with room (left of a peak in the right half). */
function peakPoint(p: MemoryPeak | null, what: string, unit: number, mid: number): Record<string, unknown> | null {
  if (!p || p.bytes <= 0) return null // a flat zero (a CPU's "reserved") is no peak to point at
  const op = p.operator ? ` · ${p.operator}` : ''
  return {
    value: [p.ts_ns, p.bytes / unit],
    name: `${what} ${formatBytes(p.bytes)}${op}`,
    label: { position: p.ts_ns > mid ? 'left' : 'right' },
  }
}

/** The chart: allocated and reserved as step lines, the window's peaks, slider + wheel zoom. */
export function curveOption(opts: {
  curve: CurvePoints
  range: [number, number]
  win: TimeWindow | null
  peaks: { allocated: MemoryPeak | null; reserved: MemoryPeak | null }
  labels: CurveLabels
}): ChartOption {
  const { curve, range, win, peaks, labels } = opts
  const zoom = { startValue: win?.t0 ?? range[0], endValue: win?.t1 ?? range[1] }
  const hasReserved = curve.reserved_bytes.some((v) => v !== null)
  const hasAllocated = curve.allocated_bytes.some((v) => v !== null) || !hasReserved
  let max = 0
  for (const v of [...curve.allocated_bytes, ...curve.reserved_bytes]) if (v !== null && v > max) max = v
  const unit = axisUnit(max)
  const mid = (zoom.startValue + zoom.endValue) / 2
  const peakData = [peakPoint(peaks.allocated, labels.allocated, unit.size, mid),
    peakPoint(peaks.reserved, labels.reserved, unit.size, mid)]
  return {
    animation: false,
    grid: { left: 64, right: 24, top: 56, bottom: 72 },
    legend: {
      top: 0,
      data: [...(hasAllocated ? [labels.allocated] : []), ...(hasReserved ? [labels.reserved] : []), labels.peak],
    },
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'line' },
      formatter: (params: { axisValue: number; seriesName: string; value: [number, number | null] }[]) => {
        const rows = params
          .filter((p) => p.value[1] !== null && p.value[1] !== undefined)
          .map((p) => `${p.seriesName}: ${formatBytes((p.value[1] as number) * unit.size)}`)
        return [`${labels.time} ${formatNs(params[0]?.axisValue)}`, ...rows].join('<br/>')
      },
    },
    xAxis: {
      type: 'value', min: range[0], max: range[1], name: labels.time, nameLocation: 'middle', nameGap: 26,
      axisLabel: { formatter: (v: number) => formatNs(v, 1), hideOverlap: true }, axisLine: { onZero: false },
    },
    yAxis: {
      type: 'value', name: unit.name, axisLine: { onZero: false },
      axisLabel: { formatter: (v: number) => `${+v.toFixed(2)}` },
    },
    dataZoom: [
      { type: 'slider', xAxisIndex: 0, filterMode: 'none', bottom: 8, height: 22, minValueSpan: 1000,
        labelFormatter: (v: number) => formatNs(v, 1), ...zoom },
      { type: 'inside', xAxisIndex: 0, filterMode: 'none', minValueSpan: 1000, ...zoom },
    ],
    series: [
      ...(hasAllocated
        ? [{ name: labels.allocated, type: 'line', step: 'end', showSymbol: false, data: points(curve, 'allocated_bytes', unit.size),
            lineStyle: { width: 1.5 }, areaStyle: { opacity: 0.08 } }]
        : []),
      ...(hasReserved
        ? [{ name: labels.reserved, type: 'line', step: 'end', showSymbol: false, data: points(curve, 'reserved_bytes', unit.size),
            lineStyle: { width: 1.2, type: 'dashed' } }]
        : []),
      { name: labels.peak, type: 'scatter', symbol: 'pin', symbolSize: 22, z: 5, data: peakData.filter(Boolean),
        label: { show: true, formatter: '{b}', fontSize: 11, distance: 4 } },
    ],
  }
}

/** `fn` called once `ms` after the last of a burst of calls (zoom gestures fire many). */
export function debounce<A extends unknown[]>(
  fn: (...args: A) => void, ms: number,
): ((...args: A) => void) & { cancel: () => void; waiting: () => A | null } {
  let timer: ReturnType<typeof setTimeout> | undefined
  let last: A | null = null
  const wrapped = (...args: A) => {
    clearTimeout(timer)
    last = args
    timer = setTimeout(() => {
      last = null
      fn(...args)
    }, ms)
  }
  wrapped.cancel = () => {
    clearTimeout(timer)
    last = null
  }
  /** The arguments of the call still waiting (null: none). */
  wrapped.waiting = () => last
  return wrapped
}
