import { describe, expect, it } from 'vitest'
import { formatBytes, formatCount, formatNs, formatPct, formatShare, formatUs } from '@/format'

describe('format', () => {
  it('picks a duration unit that keeps the digits readable', () => {
    expect(formatUs(0)).toBe('0 µs')
    expect(formatUs(0.25)).toBe('250 ns')
    expect(formatUs(12.34)).toBe('12.3 µs')
    expect(formatUs(177592.17)).toBe('177.59 ms')
    expect(formatUs(2_500_000)).toBe('2.50 s')
    expect(formatNs(1500)).toBe('1.5 µs')
    expect(formatUs(null)).toBe('–')
    expect(formatUs(Number.NaN)).toBe('–')
  })

  it('formats bytes in binary units', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(57803264)).toBe('55.1 MiB')
    expect(formatBytes(-2048)).toBe('-2.0 KiB')
    expect(formatBytes(undefined)).toBe('–')
  })

  it('formats shares, percentages and counts', () => {
    expect(formatShare(0.33369)).toBe('33.4 %')
    expect(formatPct(55.5141)).toBe('55.5 %')
    expect(formatCount(1140000)).toBe('1,140,000')
  })
})
