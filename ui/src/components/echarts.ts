/** ECharts with only the charts and components the dashboard uses (keeps the bundle small). */
import { BarChart, GraphChart, HeatmapChart, LineChart, PieChart, SankeyChart, ScatterChart } from 'echarts/charts'
import {
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  TitleComponent,
  ToolboxComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components'
import * as echarts from 'echarts/core'
import { CanvasRenderer } from 'echarts/renderers'
import { themeMode, type ThemeMode } from '@/theme'

echarts.use([
  BarChart, GraphChart, HeatmapChart, LineChart, PieChart, SankeyChart, ScatterChart,
  DataZoomComponent, GridComponent, LegendComponent, MarkAreaComponent, MarkLineComponent,
  TitleComponent, ToolboxComponent, TooltipComponent, VisualMapComponent, CanvasRenderer,
])

export { echarts }
export type { EChartsCoreOption as ChartOption } from 'echarts/core'

/** One palette for every chart, so a category keeps its colour from page to page. */
export const PALETTE = [
  '#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f',
  '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac',
]

/** Colours a chart's own option draws with (roof lines, outlines, split lines), per theme:
 * what ECharts' theme does not reach because the option names a colour itself. */
export interface ChartInk {
  /** lines and labels drawn like text */
  text: string
  /** the outline of a point, against the card */
  ground: string
  /** split lines of an axis the option styles itself */
  split: string
  /** the neutral middle of a diverging visual map */
  middle: string
}

export const INK: Record<ThemeMode, ChartInk> = {
  light: { text: '#303133', ground: '#ffffff', split: '#eef0f3', middle: '#f4f4f4' },
  dark: { text: '#e5eaf3', ground: '#1d1e1f', split: '#2e3136', middle: '#3a3d42' },
}

/** The current theme's ink (reactive: read it inside a computed option). */
export function chartInk(): ChartInk {
  return INK[themeMode.value]
}

/**
 * The index of the category column of the first grid under a pixel (null outside the grid
 * or when its x axis is not a category axis): a column stands for one item (a step), so a
 * click anywhere in it, not only on a drawn bar, picks that item.
 */
export function categoryAt(chart: echarts.ECharts, point: [number, number]): number | null {
  const axes = (chart.getOption() as { xAxis?: { type?: string; data?: unknown[] }[] }).xAxis
  const axis = axes?.[0]
  if (axis?.type !== 'category' || !axis.data?.length) return null
  if (!chart.containPixel({ gridIndex: 0 }, point)) return null
  const at = chart.convertFromPixel({ gridIndex: 0 }, point) as number | number[] | null
  const index = Math.round(Array.isArray(at) ? at[0] : (at ?? NaN))
  return Number.isInteger(index) && index >= 0 && index < axis.data.length ? index : null
}
