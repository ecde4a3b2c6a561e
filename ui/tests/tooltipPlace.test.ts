import { describe, expect, it } from 'vitest'
import { tooltipPlace } from '@/components/charts/tooltipPlace'

const VIEW: [number, number] = [1280, 800]

describe('tooltipPlace', () => {
  it('puts the tooltip right of the pointer, centred on it', () => {
    // chart at (200, 300); pointer at (100, 100) in it = (300, 400) on screen
    expect(tooltipPlace([100, 100], [150, 80], [200, 300], VIEW)).toEqual([114, 60])
  })

  it('keeps a tall tooltip below the top of the window (a step of many rows near the top)', () => {
    // the chart's top just under the header: centring would put half of it above the window
    const [, y] = tooltipPlace([40, 20], [180, 220], [200, 56], VIEW)
    expect(56 + y).toBe(4)
  })

  it('keeps it above the bottom and flips it left at the right edge', () => {
    const [x, y] = tooltipPlace([1000, 700], [200, 120], [200, 60], VIEW)
    expect(200 + x + 200).toBeLessThanOrEqual(1280 - 4)
    expect(200 + x).toBe(200 + 1000 - 14 - 200) // left of the pointer
    expect(60 + y + 120).toBeLessThanOrEqual(800 - 4)
  })

  it('keeps the left edge on screen when neither side has room', () => {
    const [x] = tooltipPlace([10, 10], [1400, 50], [0, 0], VIEW)
    expect(x).toBe(4)
  })
})
