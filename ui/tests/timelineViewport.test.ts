import { describe, expect, it } from 'vitest'
import {
  applyKey, clampView, focusWindow, keyAction, MIN_SPAN_NS, nsToPx, panBy, pxToNs, sameView, spanOf,
  wheelFactor, wholeNs, zoomAt,
} from '@/timeline/viewport'
import { formatTick, niceStep, ticks } from '@/timeline/axis'

const bounds = { lo: 0, hi: 1_000_000_000 }

describe('viewport transforms', () => {
  it('maps ns to px and back', () => {
    const v = { t0: 2_000, t1: 12_000 }
    expect(nsToPx(v, 500, 2_000)).toBe(0)
    expect(nsToPx(v, 500, 12_000)).toBe(500)
    expect(nsToPx(v, 500, 7_000)).toBe(250)
    for (const px of [0, 17, 250, 499.5]) expect(nsToPx(v, 500, pxToNs(v, 500, px))).toBeCloseTo(px, 9)
  })

  it('zooms around the cursor: the time under it stays under it', () => {
    const v = { t0: 100_000_000, t1: 300_000_000 }
    for (const anchor of [0, 0.25, 0.5, 0.9, 1]) {
      const before = pxToNs(v, 800, anchor * 800)
      const inV = zoomAt(v, 0.5, anchor, bounds)
      expect(spanOf(inV)).toBeCloseTo(100_000_000, 3)
      expect(pxToNs(inV, 800, anchor * 800)).toBeCloseTo(before, 3)
      const out = zoomAt(v, 1.5, anchor, bounds)
      expect(pxToNs(out, 800, anchor * 800)).toBeCloseTo(before, 3)
    }
  })

  it('zooming in then out by the same factor returns to the window', () => {
    const v = { t0: 400_000_000, t1: 500_000_000 }
    const back = zoomAt(zoomAt(v, 1 / 1.35, 0.3, bounds), 1.35, 0.3, bounds)
    expect(back.t0).toBeCloseTo(v.t0, 0)
    expect(back.t1).toBeCloseTo(v.t1, 0)
  })

  it('stops at the bounds and at the narrowest window', () => {
    const all = zoomAt({ t0: 0, t1: 900_000_000 }, 10, 0.5, bounds)
    expect(all).toEqual({ t0: 0, t1: 1_000_000_000 })
    const edge = zoomAt({ t0: 900_000_000, t1: 1_000_000_000 }, 3, 1, bounds)
    expect(edge.t1).toBe(1_000_000_000)
    expect(spanOf(edge)).toBe(300_000_000)
    const tiny = zoomAt({ t0: 5_000, t1: 5_400 }, 0.01, 0.5, bounds)
    expect(spanOf(tiny)).toBe(MIN_SPAN_NS)
    expect(tiny.t0).toBeGreaterThanOrEqual(5_000)
    expect(clampView({ t0: -50, t1: 150 }, bounds)).toEqual({ t0: 0, t1: 200 })
  })

  it('pans by time and keeps the span at the edges', () => {
    const v = { t0: 100, t1: 1_100 }
    expect(panBy(v, 500, bounds)).toEqual({ t0: 600, t1: 1_600 })
    expect(panBy(v, -5_000, bounds)).toEqual({ t0: 0, t1: 1_000 })
    expect(panBy({ t0: 999_000_000, t1: 999_500_000 }, 10_000_000, bounds)).toEqual({ t0: 999_500_000, t1: 1_000_000_000 })
  })

  it('maps W/S/A/D (any case, or by key code) to zoom and pan steps', () => {
    expect(['w', 'S', 'a', 'D', 'x'].map((k) => keyAction(k))).toEqual(['zoomIn', 'zoomOut', 'panLeft', 'panRight', null])
    expect(keyAction('ц', 'KeyW')).toBe('zoomIn')
    const v = { t0: 200_000_000, t1: 400_000_000 }
    expect(spanOf(applyKey(v, 'zoomIn', 0.5, bounds))).toBeLessThan(spanOf(v))
    expect(spanOf(applyKey(v, 'zoomOut', 0.5, bounds))).toBeGreaterThan(spanOf(v))
    expect(applyKey(v, 'panLeft', 0.5, bounds).t0).toBeLessThan(v.t0)
    const right = applyKey(v, 'panRight', 0.5, bounds)
    expect(right.t0).toBeGreaterThan(v.t0)
    expect(spanOf(right)).toBe(spanOf(v))
    expect(applyKey(v, 'panRight', 0.5, bounds, true).t0 - v.t0).toBeCloseTo(2 * (right.t0 - v.t0), 3)
  })

  it('turns wheel deltas into gentle zoom factors', () => {
    expect(wheelFactor(100)).toBeGreaterThan(1)
    expect(wheelFactor(-100)).toBeLessThan(1)
    expect(wheelFactor(100) * wheelFactor(-100)).toBeCloseTo(1, 9)
    expect(wheelFactor(3, 1)).toBeCloseTo(wheelFactor(120), 9)
    expect(wheelFactor(100_000)).toBe(wheelFactor(300))
  })

  it('focuses an event: keeps a view that shows it, else centres it', () => {
    const v = { t0: 0, t1: 10_000_000 }
    expect(focusWindow(1_000_000, 500_000, v, bounds)).toBe(v)
    const far = focusWindow(500_000_000, 2_000, v, bounds)
    expect(far.t0).toBeLessThan(500_000_000)
    expect(far.t1).toBeGreaterThan(500_002_000)
    expect((far.t0 + far.t1) / 2).toBeCloseTo(500_001_000, 0)
    const tinyInBig = focusWindow(1_000_000, 10, v, bounds)
    expect(spanOf(tinyInBig)).toBeLessThan(spanOf(v))
  })

  it('rounds windows to whole ns for the API and compares views', () => {
    expect(wholeNs({ t0: -3.2, t1: 0.4 })).toEqual({ t0: 0, t1: 1 })
    expect(wholeNs({ t0: 10.7, t1: 99.1 })).toEqual({ t0: 10, t1: 100 })
    expect(sameView({ t0: 0, t1: 1000 }, { t0: 0.001, t1: 1000 })).toBe(true)
    expect(sameView({ t0: 0, t1: 1000 }, { t0: 5, t1: 1000 })).toBe(false)
  })
})

describe('time axis', () => {
  it('chooses 1/2/5 x 10^k steps', () => {
    expect([0.3, 1, 3, 7, 12, 150, 2_000_001].map(niceStep)).toEqual([1, 1, 5, 10, 20, 200, 5_000_000])
  })

  it('writes exact labels down to the unit of the step', () => {
    expect(formatTick(0, 1e6)).toBe('0')
    expect(formatTick(250_000_000, 50e6)).toBe('250 ms')
    expect(formatTick(12_340_005_000, 1000)).toBe('12 s 340 ms 5 µs')
    expect(formatTick(12_340_005_000, 1e9)).toBe('12 s')
    expect(formatTick(1_500, 500)).toBe('1 µs 500 ns')
    expect(formatTick(-2e6, 1e6)).toBe('-2 ms')
  })

  it('spaces ticks so that labels never overlap, at any zoom', () => {
    for (const [t0, span] of [[0, 1.17e9], [17.3e9, 20e3], [5e9, 1e6], [123_456_789, 700]]) {
      const v = { t0, t1: t0 + span }
      const list = ticks(v, 600)
      expect(list.length).toBeGreaterThanOrEqual(2)
      for (let i = 1; i < list.length; i++) {
        const gap = list[i].px - list[i - 1].px
        expect(gap).toBeGreaterThanOrEqual(list[i - 1].label.length * 6.4 + 12 - 1e-6)
        expect(list[i].ns).toBeGreaterThan(list[i - 1].ns)
      }
      for (const tick of list) {
        expect(tick.px).toBeGreaterThanOrEqual(0)
        expect(tick.px).toBeLessThanOrEqual(600)
      }
      expect(new Set(list.map((x) => x.label)).size).toBe(list.length)
    }
  })
})
