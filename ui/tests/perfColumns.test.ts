import { describe, expect, it } from 'vitest'
import type { PerfRow } from '@/api/perf'
import { byName, joinPerf, perfColumns } from '@/components/perf/perfColumns'
import { flatColumns, formatCell } from '@/components/tables/columns'
import { formatSig } from '@/format'

function row(over: Partial<PerfRow>): PerfRow {
  return {
    name: 'aten::mm', input_shapes: '', dtype: 'fp32', category: 'gemm', calls: 1, gflops_per_call: 1,
    gbytes_per_call: 0.01, time_us: 100, arithmetic_intensity: 100, achieved_tflops: 5, achieved_tbps: 0.05,
    roof_tflops: 15.7, pct_of_roof: 0.3, bound: 'compute', longest_call_ns: [0, 1], ...over,
  }
}

describe('FLOPs columns of the operator table', () => {
  it('joins the model by name and leaves the others empty', () => {
    const model = byName([row({ name: 'aten::mm', gflops_per_call: 2.5, achieved_tflops: 7, pct_of_roof: 0.45 })])
    const joined = joinPerf([{ name: 'aten::mm', calls: 3 }, { name: 'aten::zero_', calls: 1 }], model)
    expect(joined[0]).toEqual({ name: 'aten::mm', calls: 3, gflops_per_call: 2.5, achieved_tflops: 7, pct_of_roof: 0.45 })
    expect(joined[1]).toMatchObject({ gflops_per_call: null, achieved_tflops: null, pct_of_roof: null })
    const cells = flatColumns(perfColumns()).map((c) => formatCell(c.kind, joined[0][c.key as keyof (typeof joined)[0]]))
    expect(cells).toEqual(['2.5', '7', '45.0 %'])
    expect(flatColumns(perfColumns()).map((c) => formatCell(c.kind, joined[1][c.key as keyof (typeof joined)[1]])))
      .toEqual(['–', '–', '–'])
  })

  it('joins the kernel rows with hints of their own', () => {
    const hints = (rows: 'operators' | 'kernels') => flatColumns(perfColumns(rows)).map((c) => c.hint)
    expect(flatColumns(perfColumns('kernels')).map((c) => c.key)).toEqual(flatColumns(perfColumns()).map((c) => c.key))
    expect(hints('kernels').slice(0, 2)).toEqual(['roofline.kernelCols.gflopsHint', 'roofline.kernelCols.tflopsHint'])
    expect(hints('operators').slice(0, 2)).toEqual(['roofline.opCols.gflopsHint', 'roofline.opCols.tflopsHint'])
    const kernel = 'void implicit_convolve_sgemm<float>(int)'
    const joined = joinPerf([{ name: kernel, total_us: 3 }], byName([row({ name: kernel, achieved_tflops: 9.08 })]))
    expect(joined[0].achieved_tflops).toBe(9.08)
  })

  it('reads figures over decades with three significant digits', () => {
    expect([6.57667, 0.00367002, 4714.65, 161.858, 0, 1.68076].map((n) => formatSig(n)))
      .toEqual(['6.58', '0.00367', '4,715', '162', '0', '1.68'])
    expect(formatSig(null)).toBe('–')
  })
})
