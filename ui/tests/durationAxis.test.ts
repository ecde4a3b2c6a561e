import { describe, expect, it } from 'vitest'
import {
  durationAxis, durationTick, durationTicks, niceStep, stackedMax, stepDecimals,
} from '@/components/charts/durationAxis'

describe('duration axis', () => {
  it('writes second-long steps with the decimals of the interval (not "1 s, 1 s")', () => {
    expect(durationTicks(2e5, 1.4e6)).toEqual(['0', '0.2 s', '0.4 s', '0.6 s', '0.8 s', '1.0 s', '1.2 s', '1.4 s'])
  })

  it('keeps one unit along the axis: 0.5 ms ... 3 ms', () => {
    expect(durationTicks(500, 3000)).toEqual(['0', '0.5 ms', '1.0 ms', '1.5 ms', '2.0 ms', '2.5 ms', '3.0 ms'])
  })

  it('writes whole microseconds without decimals', () => {
    expect(durationTicks(10, 50)).toEqual(['0', '10 µs', '20 µs', '30 µs', '40 µs', '50 µs'])
  })

  it('gives quarter intervals two decimals', () => {
    expect(durationTick(7.5e5, 2.5e5, 1.25e6)).toBe('0.75 s')
    expect(stepDecimals(0.25)).toBe(2)
    expect(stepDecimals(0.1 + 0.2)).toBe(1) // 0.30000000000000004
  })

  it('always labels consecutive ticks differently', () => {
    for (const max of [1.31e6, 177_592, 3.2e3, 48, 0.9, 12_345_678, 999_999]) {
      const axis = durationAxis(max) as { max: number; interval: number }
      const labels = durationTicks(axis.interval, axis.max)
      expect(new Set(labels).size).toBe(labels.length)
      expect(axis.max).toBeGreaterThanOrEqual(max)
      expect(labels.length).toBeGreaterThanOrEqual(3)
      expect(labels.length).toBeLessThanOrEqual(8)
    }
  })

  it('splits in nice steps', () => {
    expect(niceStep(1.31e6)).toBe(5e5) // 262 ms a step: 0, 0.5, 1.0, 1.5 s
    expect(niceStep(1.2e6)).toBe(2.5e5)
    expect(niceStep(177_592)).toBe(5e4)
    expect(niceStep(0)).toBe(1)
  })

  it('finds the highest stack', () => {
    expect(stackedMax([[1, 2, 3], [4, null, 1], [0.5]])).toBe(5.5)
    expect(stackedMax([])).toBe(0)
  })
})
