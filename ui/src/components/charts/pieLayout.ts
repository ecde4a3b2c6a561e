/**
 * A pie with its legend beside it, laid out in pixels from the chart's measured size, so the
 * legend never covers the pie however narrow the card (a 360 px column, a collapsed advisor):
 * the pie keeps the left, the legend the rest, and each legend name is cut with an ellipsis to
 * the width left (the legend's tooltip shows it whole).
 */

export interface Size {
  width: number
  height: number
}

export interface PieBeside {
  center: [number, number]
  radius: [number, number]
  /** The legend's left edge and the width its names may take. */
  legendLeft: number
  textWidth: number
}

const PAD = 8
/** Legend symbol and the gap after it (ECharts' itemWidth 25 + itemGap 5), plus a margin. */
const SYMBOL = 38
/** The least a legend name may keep (an ellipsis and a few characters). */
const MIN_TEXT = 48

/**
 * `inner` is the hole's share of the radius (0 for a full pie); the pie's radius is at most
 * `share` of the width, so the legend keeps the larger part.
 */
export function pieBeside(size: Size, inner = 0.5, share = 0.22): PieBeside | null {
  const { width, height } = size
  if (width <= 0 || height <= 0) return null
  const r = Math.max(16, Math.min(height / 2 - PAD, width * share))
  const cx = PAD + r
  const legendLeft = Math.round(cx + r + 16)
  return {
    center: [Math.round(cx), Math.round(height / 2)],
    radius: [Math.round(r * inner), Math.round(r)],
    legendLeft,
    textWidth: Math.max(MIN_TEXT, Math.floor(width - legendLeft - SYMBOL)),
  }
}

/** The series and legend parts of an ECharts option for `pieBeside` (percent fallbacks
 * until the chart is measured). */
export function pieBesideOption(size: Size, inner = 0.5, share = 0.22): {
  series: { center: (number | string)[]; radius: (number | string)[] }
  legend: Record<string, unknown>
} {
  const at = pieBeside(size, inner, share)
  if (!at) {
    return {
      series: { center: ['25%', '50%'], radius: [`${inner * 60}%`, '60%'] },
      legend: { left: '50%', textStyle: { width: 120, overflow: 'truncate' } },
    }
  }
  return {
    series: { center: at.center, radius: at.radius },
    legend: { left: at.legendLeft, textStyle: { width: at.textWidth, overflow: 'truncate' } },
  }
}
