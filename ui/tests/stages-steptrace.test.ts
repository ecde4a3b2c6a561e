import { describe, expect, it } from 'vitest'
import type { StepTrace, StepTraceRow } from '@/api/stages'
import { axisUs } from '@/components/stages/charts'
import {
  collectiveLines, collectiveSums, packLanes, pointSuggestions, pointsVary, stageSeries, stepView,
} from '@/components/stages/stepTrace'

/** A step from its four points (us); stages follow from them as the section defines them. */
function row(step: string, start: number, fp: number, bp: number, end: number,
  collectives: [string, number, number][] = [], ops: [string, string] = ['conv', 'grad']): StepTraceRow {
  return {
    step, start_us: start, fp_us: fp, bp_us: bp, end_us: end, total_us: end - start,
    iteration_interval_us: fp - start, fp_and_bp_us: bp - fp, tail_us: end - bp,
    fp_op: ops[0], bp_op: ops[1],
    collectives: collectives.map(([name, s, e]) => ({ name, start_us: s, end_us: e, duration_us: e - s })),
  }
}

function section(rows: StepTraceRow[]): StepTrace {
  const counted = rows.length > 1 ? rows.slice(1) : rows
  const avg = (f: (r: StepTraceRow) => number) => counted.reduce((s, r) => s + f(r), 0) / counted.length
  // average collectives keyed by name and call index, absent counting as 0 (as the server does)
  const keys = new Map<string, { name: string; index: number; total: number }>()
  for (const r of counted) {
    const seen = new Map<string, number>()
    for (const c of [...r.collectives].sort((a, b) => a.start_us - b.start_us)) {
      const k = seen.get(c.name) ?? 0
      seen.set(c.name, k + 1)
      const key = `${c.name}#${k}`
      const e = keys.get(key) ?? { name: c.name, index: k, total: 0 }
      e.total += c.duration_us
      keys.set(key, e)
    }
  }
  return {
    source: 'operator_tree',
    fp_point: { name: 'conv', source: 'auto', steps_found: rows.length },
    bp_point: { name: 'grad', source: 'auto', steps_found: rows.length },
    origin_ns: 0,
    stages: ['total', 'iteration_interval', 'fp_and_bp', 'tail'],
    steps: rows,
    average: {
      steps: counted.length, excludes_first_step: rows.length > 1,
      covered: { count: counted.length, first: counted[0]?.step ?? null, last: counted.at(-1)?.step ?? null,
        left_out: rows.length > 1 ? [rows[0].step] : [], compile: rows.length > 1 ? [rows[0].step] : [] },
      total_us: avg((r) => r.total_us), iteration_interval_us: avg((r) => r.iteration_interval_us),
      fp_and_bp_us: avg((r) => r.fp_and_bp_us), tail_us: avg((r) => r.tail_us),
      collectives: [...keys.values()].map((k) => ({ name: k.name, index: k.index, duration_us: k.total / counted.length })),
    },
  }
}

const ST = section([
  row('1', 0, 50, 150, 200, [['allreduce', 100, 140]]),
  row('2', 200, 210, 300, 320, [['allreduce', 250, 260], ['allreduce', 270, 300], ['broadcast', 205, 206]]),
  row('3', 320, 330, 420, 450, [['allreduce', 350, 390], ['allreduce', 395, 400]]),
])

describe('step trace series', () => {
  it('gives each stage per step, and they add up to the step', () => {
    const s = stageSeries(ST)
    expect(s.steps).toEqual(['1', '2', '3'])
    expect(s.stages.iteration_interval).toEqual([50, 10, 10])
    s.steps.forEach((_, i) => {
      expect(s.stages.iteration_interval[i] + s.stages.fp_and_bp[i] + s.stages.tail[i]).toBe(s.total[i])
    })
  })

  it('draws the longest collectives by call position, absent where a step has no such call', () => {
    const lines = collectiveLines(ST, 2)
    // averages over steps 2-3: allreduce #1 (10+40)/2=25, allreduce #2 (30+5)/2=17.5, broadcast 0.5
    expect(lines.map((l) => l.label)).toEqual(['allreduce #1', 'allreduce #2'])
    expect(lines[0].values).toEqual([40, 10, 40])
    expect(lines[1].values).toEqual([null, 30, 5])
    expect(collectiveLines(ST, 10).at(-1)!.label).toBe('broadcast')
    expect(collectiveSums(ST)).toEqual([40, 41, 45])
  })

  it('counts time under overlapping collectives once, inside the step only', () => {
    const st = section([row('1', 100, 110, 180, 200, [['a', 90, 130], ['b', 120, 140], ['c', 150, 160], ['d', 155, 158], ['e', 190, 230]])])
    // [100,140] + [150,160] + [190,200]
    expect(collectiveSums(st)).toEqual([60])
  })
})

describe('stepView', () => {
  it('is the average for an empty or unknown step', () => {
    for (const step of ['', 'nope']) {
      const v = stepView(ST, step)
      expect(v.step).toBeNull()
      expect(v.total_us).toBe(ST.average.total_us)
      expect(v.lanes).toEqual([])
      expect(v.averages).toBe(ST.average.collectives)
    }
  })

  it('places a step’s collectives relative to its start, overlapping ones in other lanes', () => {
    const v = stepView(ST, '2')
    expect(v.stages).toEqual({ iteration_interval: 10, fp_and_bp: 90, tail: 20 })
    const flat = v.lanes.flat().sort((a, b) => a.start_us - b.start_us)
    expect(flat.map((c) => [c.start_us, c.end_us])).toEqual([[5, 6], [50, 60], [70, 100]])
    expect(v.lanes.length).toBe(1) // none of them overlap
  })
})

describe('packLanes', () => {
  it('uses as few lanes as the overlaps need and caps them', () => {
    const items = [{ start_us: 0, end_us: 10 }, { start_us: 5, end_us: 15 }, { start_us: 10, end_us: 20 }, { start_us: 6, end_us: 8 }]
    const lanes = packLanes(items, 6)
    expect(lanes.length).toBe(3)
    for (const lane of lanes) {
      const sorted = [...lane].sort((a, b) => a.start_us - b.start_us)
      sorted.slice(1).forEach((it, i) => expect(it.start_us).toBeGreaterThanOrEqual(sorted[i].end_us))
    }
    const capped = packLanes(items, 2)
    expect(capped.length).toBe(2)
    expect(capped.flat().length).toBe(items.length)
  })
})

describe('points', () => {
  it('notices when steps split at different operators', () => {
    expect(pointsVary(ST)).toBe(false)
    expect(pointsVary(section([row('1', 0, 1, 2, 3), row('2', 3, 4, 5, 6, [], ['other', 'grad'])]))).toBe(true)
  })

  it('suggests operator names, then host ranges of the timeline search, never device work', () => {
    const names = pointSuggestions(['aten::mm', 'forward'], {
      names: ['forward', 'Optimizer.step#SGD.step', 'volta_sgemm', 'torch/nn/modules/linear.py(113): forward'],
      events: { name: [0, 1, 2, 3, 1], kind: [2, 2, 6, 3, 2] },
    })
    expect(names).toEqual(['aten::mm', 'forward', 'Optimizer.step#SGD.step'])
    expect(pointSuggestions(['a', 'b', 'c'], null, 2)).toEqual(['a', 'b'])
  })
})

describe('axisUs', () => {
  it('keeps the decimals a tick needs', () => {
    expect(axisUs(1_500_000)).toBe('1.5 s')
    expect(axisUs(2_000_000)).toBe('2 s')
    expect(axisUs(250_000)).toBe('250 ms')
    expect(axisUs(2_500)).toBe('2.5 ms')
    expect(axisUs(0)).toBe('0 µs')
  })
})
