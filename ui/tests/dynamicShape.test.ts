import { describe, expect, it } from 'vitest'
import type { DynamicShape, DynamicShapeType } from '@/api/tables'
import { legendSelected, stepSpread, typeLines } from '@/components/operators/dynamicShape'

/** A type over steps from its calls' durations per step (as the server sums them). */
function type(name: string, perStep: number[][]): DynamicShapeType {
  const step_us = perStep.map((d) => d.reduce((a, b) => a + b, 0))
  const calls = perStep.reduce((a, d) => a + d.length, 0)
  const total = step_us.reduce((a, b) => a + b, 0)
  return {
    type: name, sides: ['gpu'], calls, total_us: total, mean_us: total / calls, percent: 0, op_count: 1,
    step_us, step_calls: perStep.map((d) => d.length),
    step_mean_us: perStep.map((d) => (d.length ? d.reduce((a, b) => a + b, 0) / d.length : null)),
  }
}

function section(types: DynamicShapeType[]): DynamicShape {
  return {
    layout: 'gpu', steps: types[0].step_us.map((_, i) => i + 1), call_count: 0, total_us: 0,
    op_count: 0, types, ops: [],
  }
}

describe('dynamic shape card', () => {
  // The real fixture's GetNext: two calls in step 1, none in step 3.
  const getNext = type('GetNext', [[139.392, 167.648], [80.224], []])
  const add = type('Add', [[75.616], [48.64], [36.032]])

  it('draws MindInsight\'s mean per call, with a gap where the type did not run', () => {
    const [line] = typeLines(section([getNext, add]), 'mean')
    expect(line.name).toBe('GetNext')
    expect(line.values[0]).toBeCloseTo(153.52, 6)
    expect(line.values.slice(1)).toEqual([80.224, null])
  })

  it('draws the total per step, also with a gap (not a 0) where it did not run', () => {
    const [line] = typeLines(section([getNext, add]), 'total')
    expect(line.values[0]).toBeCloseTo(307.04, 6)
    expect(line.values[2]).toBeNull()
  })

  it('draws at most `max` types and switches on the first ones', () => {
    const many = Array.from({ length: 12 }, (_, i) => type(`T${i}`, [[1], [2]]))
    const lines = typeLines(section(many), 'mean', 10)
    expect(lines).toHaveLength(10)
    const selected = legendSelected(lines, 5)
    expect(Object.values(selected).filter(Boolean)).toHaveLength(5)
    expect(selected.T0).toBe(true)
    expect(selected.T9).toBe(false)
  })

  it('measures how far a call\'s time moves over the steps it ran in', () => {
    const s = stepSpread(getNext)!
    expect(s.steps).toBe(2)
    expect(s.min).toBeCloseTo(80.224, 6)
    expect(s.max).toBeCloseTo(153.52, 6)
    expect(s.ratio).toBeCloseTo(153.52 / 80.224, 6)
    expect(stepSpread(type('Never', [[], []]))).toBeNull()
    expect(stepSpread(type('Zero', [[0], [3]]))!.ratio).toBeNull()
  })
})
