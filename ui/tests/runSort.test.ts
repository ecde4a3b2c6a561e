import { describe, expect, it } from 'vitest'
import type { Run } from '@/api/types'
import { sortRuns } from '@/runSort'

function run(name: string, extra: Partial<Run> = {}): Run {
  return { id: name, name, formats: ['kineto'], notes: [], pages: [], state: 'ready', workers: ['w0'], ...extra }
}

const all = (n: number) => ({ compile: [], count: n, first: '1', last: String(n), left_out: [] })
const RUNS = [
  run('c', { summary: { steps: 6, step_us: 10, step_covered: all(6), framework: 'pytorch', device: 'gpu' }, workers: ['a', 'b'] }),
  run('a', { summary: { steps: 1, step_us: 30, step_covered: all(1), framework: 'mindspore', device: 'npu' }, formats: ['mindspore_legacy'] }),
  run('b', { state: 'analysing' }),
  run('d', { summary: { steps: 1, step_us: 20, step_covered: all(1), framework: 'pytorch', device: 'gpu' }, state: 'failed' }),
]
const names = (runs: Run[]) => runs.map((r) => r.name)

describe('sortRuns', () => {
  it('keeps the server order without a sort', () => {
    expect(names(sortRuns(RUNS, null, 'asc'))).toEqual(['c', 'a', 'b', 'd'])
  })

  it('sorts numbers as numbers, both ways, runs without the value last, ties by name', () => {
    expect(names(sortRuns(RUNS, 'step', 'asc'))).toEqual(['c', 'd', 'a', 'b'])
    expect(names(sortRuns(RUNS, 'step', 'desc'))).toEqual(['a', 'd', 'c', 'b'])
    expect(names(sortRuns(RUNS, 'steps', 'asc'))).toEqual(['a', 'd', 'c', 'b'])
    expect(names(sortRuns(RUNS, 'steps', 'desc'))).toEqual(['c', 'a', 'd', 'b'])
    expect(names(sortRuns(RUNS, 'workers', 'desc'))).toEqual(['c', 'a', 'b', 'd'])
  })

  it('sorts text columns and the state in its natural order', () => {
    expect(names(sortRuns(RUNS, 'name', 'desc'))).toEqual(['d', 'c', 'b', 'a'])
    expect(names(sortRuns(RUNS, 'framework', 'asc'))).toEqual(['a', 'b', 'c', 'd'])
    expect(names(sortRuns(RUNS, 'device', 'desc'))).toEqual(['a', 'c', 'd', 'b'])
    expect(names(sortRuns(RUNS, 'state', 'asc'))).toEqual(['a', 'c', 'b', 'd'])
  })
})
