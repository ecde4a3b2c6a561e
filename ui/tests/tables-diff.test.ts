import { describe, expect, it } from 'vitest'
import type { Change } from '@/api/tables'
import type { Run } from '@/api/types'
import { BREAKDOWN_KEYS } from '@/api/overview'
import {
  breakdownBars, changePct, comparableRuns, defaultOtherWorker, presence, trend,
} from '@/components/tables/diffRows'

const change = (name: string, before: number, after: number): Change => ({
  name, before_us: before, after_us: after, delta_us: after - before, ratio: before ? after / before : null,
})

describe('diff rows', () => {
  it('reads a change as slower, faster or the same', () => {
    expect(changePct(change('a', 200, 250))).toBe(25)
    expect(changePct(change('a', 0, 5))).toBeNull()
    expect(trend(change('a', 1000, 1100))).toBe('slower')
    expect(trend(change('a', 1000, 900))).toBe('faster')
    expect(trend(change('a', 1000, 1004))).toBe('same')
    expect(trend(change('a', 0.2, 0.9))).toBe('same') // under a microsecond
    expect(presence(change('a', 0, 5))).toBe('new')
    expect(presence(change('a', 5, 0))).toBe('gone')
    expect(presence(change('a', 5, 6))).toBe('both')
  })

  it('draws the categories with time, in the breakdown order', () => {
    const rows = [change('dataloader', 50, 0), change('kernel', 10, 20), change('memset', 0, 0), change('custom', 1, 2)]
    const bars = breakdownBars(rows, BREAKDOWN_KEYS)
    expect(bars.names).toEqual(['kernel', 'dataloader', 'custom'])
    expect(bars.before).toEqual([10, 50, 1])
    expect(bars.after).toEqual([20, 0, 2])
    expect(bars.delta).toEqual([10, -50, 1])
  })

  it('offers analysed runs, this one first, and a sensible worker', () => {
    const run = (id: string, state: Run['state'], workers: string[]): Run =>
      ({ id, name: id, workers, formats: [], pages: [], notes: [], state })
    const runs = [run('b', 'ready', ['rank0', 'rank1']), run('c', 'analysing', ['w']), run('a', 'ready', ['rank0', 'rank1'])]
    expect(comparableRuns(runs, 'a').map((r) => r.id)).toEqual(['a', 'b'])
    expect(defaultOtherWorker(runs[2], 'a', 'rank0')).toBe('rank1')
    expect(defaultOtherWorker(runs[0], 'a', 'rank1')).toBe('rank1')
    expect(defaultOtherWorker(runs[0], 'a', 'worker0')).toBe('rank0')
    expect(defaultOtherWorker(undefined, 'a', 'rank0')).toBeUndefined()
  })
})
