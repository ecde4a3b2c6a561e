/**
 * The roofline page's arithmetic, pure and unit-tested: which peak a row is measured
 * against (the rule of `analysis/perf/roofline.py` `Device.peak_tflops`, so the lines drawn
 * are the roofs the server divided by), the roof lines over an intensity range, the log
 * axes' ranges, and the category / dtype filters the URL holds.
 */
import type { PerfDevice, PerfRow } from '@/api/perf'

/** Work that runs on the matrix units (tensor cores, MFMA, cube) at its dtype's rate. */
export const MATRIX_CATEGORIES = ['gemm', 'conv', 'attention']

/** Categories in the server's order (`analysis/perf/calls.py`), which fixes their colours. */
export const CATEGORY_ORDER = [
  'gemm', 'conv', 'attention', 'norm', 'softmax', 'elementwise', 'reduction', 'copy',
  'embedding', 'optimizer', 'loss', 'communication', 'other',
]
const CATEGORY_COLOURS = [
  '#4e79a7', '#e15759', '#b07aa1', '#f28e2b', '#edc948', '#59a14f', '#76b7b2', '#9c755f',
  '#ff9da7', '#17becf', '#8c564b', '#bab0ac', '#7f7f7f',
]

export function categoryColour(category: string): string {
  const i = CATEGORY_ORDER.indexOf(category)
  return i >= 0 ? CATEGORY_COLOURS[i] : CATEGORY_COLOURS[CATEGORY_COLOURS.length - 1]
}

/**
 * The device table's key of the peak a row is measured against: matrix work at its dtype's
 * key (FP8 variants: `fp8`; FP32/FP64 on the matrix units where the table has
 * `<key>_matrix`, else the vector figure), everything else at the FP32 vector rate (FP64
 * for FP64 work). Null when the device has no such peak.
 */
export function peakKey(dtype: string, category: string, peaks: Record<string, number>): string | null {
  let key: string
  if (MATRIX_CATEGORIES.includes(category)) {
    key = dtype.startsWith('fp8') ? 'fp8' : dtype
    if ((key === 'fp32' || key === 'fp64') && peaks[`${key}_matrix`]) key = `${key}_matrix`
  } else {
    key = dtype === 'fp64' ? 'fp64' : 'fp32'
  }
  return peaks[key] ? key : null
}

export interface RoofLine {
  key: string
  peak: number
  /** Intensity where the memory roof meets the peak (null without a bandwidth). */
  ridge: number | null
  points: [number, number][]
}

/**
 * One roof per peak the rows are measured against, highest first: min(peak, bandwidth x
 * intensity) over [x0, x1] (FLOPs/byte; TB/s x FLOPs/byte = TFLOPS), the ridge as a corner;
 * a flat line when the bandwidth is unknown.
 */
export function roofLines(rows: PerfRow[], device: PerfDevice, x0: number, x1: number): RoofLine[] {
  const keys = new Set<string>()
  for (const r of rows) {
    const key = peakKey(r.dtype, r.category, device.peak_tflops)
    if (key) keys.add(key)
  }
  const bw = device.bandwidth_tbps
  return [...keys]
    .map((key) => {
      const peak = device.peak_tflops[key]
      const ridge = bw ? peak / bw : null
      const roof = (x: number) => (bw ? Math.min(peak, bw * x) : peak)
      const points: [number, number][] = [[x0, roof(x0)]]
      if (ridge !== null && ridge > x0 && ridge < x1) points.push([ridge, peak])
      points.push([x1, roof(x1)])
      return { key, peak, ridge, points }
    })
    .sort((a, b) => b.peak - a.peak || a.key.localeCompare(b.key))
}

/** Rows a log-log chart can place: a positive intensity and achieved rate. */
export function plottable(rows: PerfRow[]): PerfRow[] {
  return rows.filter((r) => (r.arithmetic_intensity ?? 0) > 0 && (r.achieved_tflops ?? 0) > 0)
}

/**
 * Whole decades around `values` (at least one decade wide), with a quarter of room at each
 * end so that a point on a decade is not cut by the edge; [1, 10] when there are none.
 */
export function decades(values: number[]): [number, number] {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v))
  if (!positive.length) return [1, 10]
  const lo = Math.floor(Math.log10(Math.min(...positive) / 1.25))
  const hi = Math.ceil(Math.log10(Math.max(...positive) * 1.25))
  return [10 ** lo, 10 ** Math.max(hi, lo + 1)]
}

/** The chart's axes: the points, the ridges and the peaks inside whole decades. */
export function axisRanges(rows: PerfRow[], device: PerfDevice): { x: [number, number]; y: [number, number] } {
  const points = plottable(rows)
  const peaks = roofLines(points, device, 1, 1)
  const x = decades([
    ...points.map((r) => r.arithmetic_intensity!),
    ...peaks.flatMap((l) => (l.ridge ? [l.ridge * 2] : [])),
  ])
  const y = decades([...points.map((r) => r.achieved_tflops!), ...peaks.map((l) => l.peak)])
  return { x, y }
}

/** A comma-separated URL value as a list (empty entries dropped). */
export function parseList(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter(Boolean)
}

export interface RowFilter {
  categories: string[]
  dtypes: string[]
  search?: string
}

/** Rows in the chosen categories and dtypes (none chosen: all), whose name has `search`
 * (in any case), or is it exactly when "quoted" (as the server's table search). */
export function filterRows(rows: PerfRow[], f: RowFilter): PerfRow[] {
  const text = (f.search ?? '').trim()
  const exact = text.length > 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : null
  const needle = text.toLowerCase()
  return rows.filter((r) =>
    (!f.categories.length || f.categories.includes(r.category))
    && (!f.dtypes.length || f.dtypes.includes(r.dtype))
    && (exact !== null ? r.name === exact : !needle || r.name.toLowerCase().includes(needle)))
}

/** The distinct values of a field, most time first (the filter's options). */
export function optionsBy(rows: PerfRow[], field: 'category' | 'dtype'): string[] {
  const time = new Map<string, number>()
  for (const r of rows) time.set(r[field], (time.get(r[field]) ?? 0) + r.time_us)
  return [...time.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k]) => k)
}

/** Symbol diameter in px: the area grows with the time (sqrt), 5-36 px. */
export function symbolSize(timeUs: number, maxUs: number): number {
  if (!(maxUs > 0) || !(timeUs > 0)) return 5
  return 5 + 31 * Math.sqrt(Math.min(timeUs / maxUs, 1))
}

/** Rows sorted by a field (nulls last in both orders), for the client-side tables. */
export function sortRows<Row extends object>(rows: Row[], key: string, order: 'asc' | 'desc'): Row[] {
  const sign = order === 'asc' ? 1 : -1
  const get = (r: Row) => (r as Record<string, unknown>)[key]
  return [...rows].sort((a, b) => {
    const x = get(a)
    const y = get(b)
    if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1
    if (y === null || y === undefined) return -1
    if (typeof x === 'number' && typeof y === 'number') return sign * (x - y)
    return sign * String(x).localeCompare(String(y))
  })
}

/** Text for an HTML tooltip (operator names hold `<` and `&` in C++ templates). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
