import { describe, expect, it } from 'vitest'
import { estimateWidth, gridTopBelow, legendOnTop, legendRows } from '@/components/charts/legendSpace'

const tenPx = (text: string) => text.length * 10

describe('legend space', () => {
  it('wraps the items the way ECharts does', () => {
    // each item: 25 + 5 + 50 = 80 px, 10 px apart; 190 px of room fits two a row
    expect(legendRows(['aaaaa', 'bbbbb', 'ccccc', 'ddddd', 'eeeee'], 200, tenPx)).toBe(3)
    expect(legendRows(['aaaaa', 'bbbbb', 'ccccc', 'ddddd', 'eeeee'], 1000, tenPx)).toBe(1)
    expect(legendRows([], 500, tenPx)).toBe(0)
  })

  it('puts a long name alone on its row, never none', () => {
    expect(legendRows(['x'.repeat(100)], 200, tenPx)).toBe(1)
    expect(legendRows(['x'.repeat(100), 'y'], 200, tenPx)).toBe(2)
  })

  it('moves the grid below every row', () => {
    expect(gridTopBelow(1)).toBe(10 + 14 + 18)
    expect(gridTopBelow(3) - gridTopBelow(2)).toBe(24)
    const narrow = legendOnTop(['Kernel', 'Memcpy', 'Memset', 'Runtime', 'DataLoader', 'CPU Exec', 'Other'], 360, tenPx)
    const wide = legendOnTop(['Kernel', 'Memcpy', 'Memset', 'Runtime', 'DataLoader', 'CPU Exec', 'Other'], 1200, tenPx)
    expect(narrow.gridTop).toBeGreaterThan(wide.gridTop)
  })

  it('estimates Chinese wider than latin', () => {
    expect(estimateWidth('通信')).toBe(24)
    expect(estimateWidth('ab')).toBeCloseTo(14.4)
  })
})
