/**
 * Room for a chart's legend above its grid. ECharts wraps a plain legend into as many rows
 * as the chart's width needs, but the grid's `top` is fixed, so on a narrow card the second
 * row covered the y axis' top label (the per-step stacked bars). This lays the legend out
 * the way ECharts does (items left to right, wrapped at the width) from measured text widths
 * and puts the grid below its last row.
 */

/** ECharts' legend defaults: symbol 25x14, 5 px to the text, 10 px between items, padding 5. */
const ITEM_W = 25
const ITEM_H = 14
const TEXT_GAP = 5
const ITEM_GAP = 10
const PADDING = 5
/** Below the legend: half a label's height and a gap, so the top tick's label is clear. */
const BELOW = 18

export type Measure = (text: string) => number

/** How many rows the legend of these names takes in a chart this wide. */
export function legendRows(names: string[], width: number, measure: Measure): number {
  const room = Math.max(1, width - 2 * PADDING)
  let rows = names.length ? 1 : 0
  let x = 0
  for (const name of names) {
    const w = ITEM_W + TEXT_GAP + measure(name)
    if (x > 0 && x + w > room) {
      rows += 1
      x = 0
    }
    x += w + ITEM_GAP
  }
  return rows
}

/** The grid's top that clears a legend of `rows` rows at the chart's top. */
export function gridTopBelow(rows: number): number {
  if (rows === 0) return BELOW + 8
  return PADDING * 2 + rows * ITEM_H + (rows - 1) * ITEM_GAP + BELOW
}

/** An estimate of a 12 px sans-serif text's width (latin ~0.6 em, CJK 1 em): where no canvas measures. */
export function estimateWidth(text: string, fontSize = 12): number {
  let w = 0
  for (const ch of text) w += /[\u2e80-\u9fff\uff00-\uffef]/.test(ch) ? fontSize : fontSize * 0.6
  return w
}

let context: CanvasRenderingContext2D | null | undefined
/** The text's width in ECharts' default legend font, measured on a canvas when there is one. */
export function measureLegendText(text: string): number {
  if (context === undefined) {
    try {
      context = globalThis.document?.createElement('canvas').getContext('2d') ?? null
    } catch {
      context = null
    }
    if (context) context.font = '12px sans-serif'
  }
  return context ? context.measureText(text).width : estimateWidth(text)
}

/** A legend at the top-left and the grid's top below it, for a chart `width` px wide. */
export function legendOnTop(names: string[], width: number, measure: Measure = measureLegendText): {
  legend: Record<string, unknown>
  gridTop: number
} {
  // until the chart is measured, assume the widest case of one item a row
  const rows = width > 0 ? legendRows(names, width, measure) : names.length
  return { legend: { top: 0, left: 'center', data: names }, gridTop: gridTopBelow(rows) }
}
