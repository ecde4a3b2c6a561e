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
