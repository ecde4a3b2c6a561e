import { describe, expect, it } from 'vitest'
import { cpuLines } from '@/components/stages/cpuCurves'

describe('MindData CPU curves', () => {
  it('labels samples with their steps and pads short series', () => {
    const c = {
      sampling_interval_ms: 1000,
      samples: 3,
      series: { process_user: [87, 98, 96], device_user: [0, 82] },
      sample_steps: ['5', '11'],
      per_step: null,
    }
    const out = cpuLines(c)
    expect(out.labels).toEqual(['#1 · 5', '#2 · 11', '#3'])
    expect(out.lines.map((l) => l.key)).toEqual(['device_user', 'process_user'])
    expect(out.lines[0].values).toEqual([0, 82, null])
  })
})
