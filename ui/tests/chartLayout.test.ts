import { describe, expect, it } from 'vitest'
import { pieBeside, pieBesideOption } from '@/components/charts/pieLayout'

describe('pieBeside', () => {
  it('keeps the legend right of the pie in a narrow card (Kernels beside its table)', () => {
    const at = pieBeside({ width: 326, height: 200 })!
    expect(at.center[0] + at.radius[1]).toBeLessThan(at.legendLeft)
    expect(at.legendLeft + at.textWidth).toBeLessThanOrEqual(326)
    expect(at.textWidth).toBeGreaterThan(100)
  })

  it('gives a wide card a full-height pie and long names', () => {
    const at = pieBeside({ width: 1000, height: 200 })!
    expect(at.radius[1]).toBe(92) // half the height less the padding
    expect(at.textWidth).toBeGreaterThan(700)
    expect(at.center).toEqual([100, 100])
  })

  it('never lets the names vanish nor the pie leave the chart', () => {
    const at = pieBeside({ width: 120, height: 200 })!
    expect(at.textWidth).toBe(48)
    expect(at.center[0] - at.radius[1]).toBeGreaterThanOrEqual(0)
  })

  it('is unknown before the chart is measured (percent fallbacks)', () => {
    expect(pieBeside({ width: 0, height: 200 })).toBeNull()
    expect(pieBesideOption({ width: 0, height: 0 }).series.center).toEqual(['25%', '50%'])
  })

  it('truncates the legend to the measured width', () => {
    const o = pieBesideOption({ width: 400, height: 240 }, 0.6)
    expect(o.legend.textStyle).toEqual({ width: 400 - (o.legend.left as number) - 38, overflow: 'truncate' })
    expect(o.series.radius[0]).toBe(Math.round((o.series.radius[1] as number) * 0.6))
  })
})
