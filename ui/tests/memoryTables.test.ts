import { describe, expect, it } from 'vitest'
import {
  EVENTS_TABLE, formatFigure, OPERATORS_TABLE, PAGE_SIZE, shownColumns, sortOrders,
} from '@/components/memory/memoryTables'
import { formatBytes, formatCount, formatNs } from '@/format'

describe('memory tables', () => {
  it('sorts only by what the server sorts by, and by default on a column it shows', () => {
    for (const spec of [EVENTS_TABLE, OPERATORS_TABLE]) {
      const sortable = spec.columns.filter((c) => c.first).map((c) => c.prop)
      for (const prop of sortable) expect(spec.defaults.sortable).toContain(prop)
      expect(sortable).toContain(spec.defaults.sort)
      expect(spec.defaults.size).toBe(PAGE_SIZE)
    }
  })

  it('leaves out the held-at-once column where releases are unknown', () => {
    const props = (noReleases: boolean) => shownColumns(OPERATORS_TABLE, noReleases).map((c) => c.prop)
    expect(props(false)).toContain('peak_held_bytes')
    expect(props(true)).not.toContain('peak_held_bytes')
    expect(props(true)).toHaveLength(OPERATORS_TABLE.columns.length - 1)
    expect(shownColumns(EVENTS_TABLE, true)).toEqual(EVENTS_TABLE.columns)
  })

  it('sorts names and times from the start, sizes largest first', () => {
    const first = Object.fromEntries(EVENTS_TABLE.columns.map((c) => [c.prop, c.first && sortOrders(c)[0]]))
    expect(first).toEqual({
      operator: 'ascending', bytes: 'descending', alloc_ns: 'ascending', release_ns: 'ascending',
      duration_ns: 'descending', state: undefined,
    })
    expect(OPERATORS_TABLE.columns.filter((c) => c.first).every((c) => sortOrders(c)[0] === 'descending')).toBe(true)
  })

  it('writes figures as the rest of the dashboard does, a missing one as its formatter does', () => {
    expect(formatFigure('bytes', 3 << 20)).toBe(formatBytes(3 << 20))
    expect(formatFigure('count', 12345)).toBe(formatCount(12345))
    expect(formatFigure('ns', 1500)).toBe(formatNs(1500))
    expect(formatFigure('ns', null)).toBe(formatNs(null))
    expect(formatFigure('operator', null)).toBe('')
  })
})
