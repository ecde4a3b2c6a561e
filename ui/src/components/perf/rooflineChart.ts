/**
 * The roofline chart's ECharts option: a log-log scatter of the rows (x: FLOPs per byte,
 * y: achieved TFLOPS, area ~ time, one series per category for its colour) under the
 * device's roof lines. Pure: the texts come in as functions, so it is unit-tested.
 */
import type { PerfDevice, PerfRow } from '@/api/perf'
import { INK, type ChartInk, type ChartOption } from '@/components/echarts'
import { axisRanges, categoryColour, CATEGORY_ORDER, plottable, roofLines, symbolSize } from './roofline'

/** The plot's insets in px (the browser test finds a point's pixel from them and the axes). */
export const GRID = { left: 64, right: 150, top: 36, bottom: 48 }

export interface ChartTexts {
  x: string
  y: string
  roof: (key: string, peak: number) => string
  category: (category: string) => string
  /** The tooltip of a point (HTML; the caller escapes the row's text). */
  point: (row: PerfRow) => string
}

export interface RooflineChart {
  option: ChartOption
  /** The rows in the order of their points' `value[2]` index. */
  rows: PerfRow[]
  x: [number, number]
  y: [number, number]
}

export function rooflineChart(
  shown: PerfRow[], device: PerfDevice | null, texts: ChartTexts, ink: ChartInk = INK.light,
): RooflineChart {
  const rows = plottable(shown)
  const noDevice: PerfDevice = {
    name: null, how: 'none', reason: '', reason_zh: '', peak_tflops: {}, bandwidth_tbps: null,
    sources: [], warnings: [], warnings_zh: [],
  }
  const dev = device ?? noDevice
  const { x, y } = axisRanges(rows, dev)
  const maxUs = Math.max(0, ...rows.map((r) => r.time_us))
  const categories = [...new Set(rows.map((r) => r.category))].sort(
    (a, b) => CATEGORY_ORDER.indexOf(a) - CATEGORY_ORDER.indexOf(b) || a.localeCompare(b))
  const points = categories.map((category) => ({
    name: texts.category(category),
    type: 'scatter',
    itemStyle: { color: categoryColour(category), opacity: 0.75, borderColor: ink.ground, borderWidth: 0.5 },
    emphasis: { focus: 'none', itemStyle: { opacity: 1, borderColor: ink.text, borderWidth: 1 } },
    data: rows.flatMap((r, i) => r.category === category
      ? [{ value: [r.arithmetic_intensity, r.achieved_tflops, i], symbolSize: symbolSize(r.time_us, maxUs) }]
      : []),
    tooltip: { formatter: (p: { value: number[] }) => texts.point(rows[p.value[2]]) },
  }))
  const roofs = roofLines(rows, dev, x[0], x[1]).map((line, i) => ({
    name: texts.roof(line.key, line.peak),
    type: 'line',
    data: line.points,
    symbol: 'none',
    silent: true,
    z: 1,
    lineStyle: { color: ink.text, width: 1.5, type: i === 0 ? 'solid' : 'dashed' },
    endLabel: { show: true, formatter: texts.roof(line.key, line.peak), fontSize: 11, color: ink.text },
    tooltip: { show: false },
  }))
  const axis = (name: string, range: [number, number], gap: number) => ({
    type: 'log',
    logBase: 10,
    min: range[0],
    max: range[1],
    name,
    nameLocation: 'middle',
    nameGap: gap,
    axisLabel: { formatter: (v: number) => axisNumber(v) },
    splitLine: { lineStyle: { color: ink.split } },
    minorSplitLine: { show: false },
  })
  return {
    rows,
    x,
    y,
    option: {
      animation: false,
      grid: { ...GRID, containLabel: false },
      legend: { top: 0, left: GRID.left, data: categories.map(texts.category), selectedMode: false },
      tooltip: { trigger: 'item', confine: true, className: 'roofline-tooltip' },
      xAxis: axis(texts.x, x, 28),
      yAxis: axis(texts.y, y, 44),
      series: [...roofs, ...points],
    },
  }
}

/** A decade's label: 0.001 ... 1000, then 1e4 (log axes only have decades). */
export function axisNumber(v: number): string {
  if (v >= 1e4 || v < 1e-3) return v.toExponential(0).replace('e+', 'e')
  return String(Number(v.toPrecision(3)))
}
