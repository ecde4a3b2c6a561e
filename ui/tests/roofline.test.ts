import { describe, expect, it } from 'vitest'
import type { PerfDevice, PerfRow } from '@/api/perf'
import { kernelRoute, operatorRoute, timelineRoute } from '@/components/perf/perfLinks'
import {
  axisRanges, categoryColour, decades, escapeHtml, filterRows, optionsBy, parseList, peakKey, plottable,
  roofLines, sortRows, symbolSize,
} from '@/components/perf/roofline'
import { axisNumber, rooflineChart } from '@/components/perf/rooflineChart'

/** The V100's figures as the device table gives them (no fp32_matrix: FP32 GEMMs on CUDA cores). */
const V100: PerfDevice = {
  name: 'V100 SXM2 32GB', how: 'name', reason: 'r', reason_zh: 'r', peak_tflops: { fp64: 7.8, fp32: 15.7, fp16: 125 },
  bandwidth_tbps: 0.9, sources: [], warnings: [], warnings_zh: [],
}
/** An MI300X-like device: FP32 and FP64 matrix figures above the vector ones, and FP8. */
const MFMA: PerfDevice = {
  ...V100, name: 'M', peak_tflops: { fp64: 81.7, fp64_matrix: 163.4, fp32: 81.7, fp32_matrix: 163.4, bf16: 1307, fp8: 2615 },
  bandwidth_tbps: 5.3,
}

function row(over: Partial<PerfRow>): PerfRow {
  return {
    name: 'aten::mm', input_shapes: '[[64, 64], [64, 64]]', dtype: 'fp32', category: 'gemm', calls: 1,
    gflops_per_call: 1, gbytes_per_call: 0.01, time_us: 100, arithmetic_intensity: 100, achieved_tflops: 5,
    achieved_tbps: 0.05, roof_tflops: 15.7, pct_of_roof: 0.3, bound: 'compute', longest_call_ns: [1_000_000, 1_200_000],
    ...over,
  }
}

describe('peakKey (analysis/perf/roofline.py Device.peak_tflops)', () => {
  it('puts matrix work at its dtype, FP32/FP64 on the matrix units only where the table says so', () => {
    expect(peakKey('fp16', 'gemm', V100.peak_tflops)).toBe('fp16')
    expect(peakKey('fp32', 'conv', V100.peak_tflops)).toBe('fp32')
    expect(peakKey('fp32', 'attention', MFMA.peak_tflops)).toBe('fp32_matrix')
    expect(peakKey('fp64', 'gemm', MFMA.peak_tflops)).toBe('fp64_matrix')
    expect(peakKey('fp8_e4m3', 'gemm', MFMA.peak_tflops)).toBe('fp8')
    expect(peakKey('bf16', 'gemm', V100.peak_tflops)).toBeNull() // no BF16 on a V100
  })

  it('puts everything else at the FP32 vector rate (FP64 for FP64 work)', () => {
    expect(peakKey('fp16', 'elementwise', V100.peak_tflops)).toBe('fp32')
    expect(peakKey('bf16', 'norm', MFMA.peak_tflops)).toBe('fp32')
    expect(peakKey('int64', 'copy', V100.peak_tflops)).toBe('fp32')
    expect(peakKey('fp64', 'reduction', MFMA.peak_tflops)).toBe('fp64')
    expect(peakKey('fp32', 'softmax', {})).toBeNull()
  })
})

describe('roofLines', () => {
  it('draws one roof per peak in use, memory slope up to the ridge then flat', () => {
    const rows = [row({}), row({ category: 'elementwise' }), row({ dtype: 'fp16' })]
    const lines = roofLines(rows, V100, 0.1, 1000)
    expect(lines.map((l) => l.key)).toEqual(['fp16', 'fp32']) // two rows share the fp32 roof
    const [fp16, fp32] = lines
    expect(fp32.ridge).toBeCloseTo(15.7 / 0.9)
    expect(fp32.points).toEqual([[0.1, 0.9 * 0.1], [fp32.ridge, 15.7], [1000, 15.7]])
    expect(fp16.points[0][1]).toBeCloseTo(0.09)
    expect(fp16.points[2]).toEqual([1000, 125])
  })

  it('is flat without a bandwidth, skips a ridge outside the range, and has no line without a peak', () => {
    expect(roofLines([row({})], { ...V100, bandwidth_tbps: null }, 1, 100)[0].points).toEqual([[1, 15.7], [100, 15.7]])
    expect(roofLines([row({})], V100, 100, 1000)[0].points).toEqual([[100, 15.7], [1000, 15.7]])
    expect(roofLines([row({ dtype: 'bf16' })], V100, 1, 10)).toEqual([])
  })
})

describe('the roofs drawn are the ones the server divided by', () => {
  // rows of the Kineto resnet50 V100 trace (../shared/data), as /perf-model serves them
  const served = [
    { name: 'aten::cudnn_convolution_backward', dtype: 'fp32', category: 'conv', arithmetic_intensity: 161.858, roof_tflops: 15.7, bound: 'compute' },
    { name: 'aten::cudnn_batch_norm_backward', dtype: 'fp32', category: 'norm', arithmetic_intensity: 1.08331, roof_tflops: 0.974977, bound: 'memory' },
    { name: 'aten::add_', dtype: 'fp32', category: 'elementwise', arithmetic_intensity: 0.0833333, roof_tflops: 0.075, bound: 'memory' },
    { name: 'aten::conv2d', dtype: 'fp32', category: 'conv', arithmetic_intensity: 15.9949, roof_tflops: 14.3954, bound: 'memory' },
    { name: 'aten::linear', dtype: 'fp32', category: 'gemm', arithmetic_intensity: 15.2655, roof_tflops: 13.739, bound: 'memory' },
    { name: 'aten::nll_loss_backward', dtype: 'fp32', category: 'loss', arithmetic_intensity: 0.000249493, roof_tflops: 0.000224544, bound: 'memory' },
  ] as const

  it('meets each row at its intensity, on the side of the ridge the server named', () => {
    for (const s of served) {
      const r = row({ ...s })
      const [line] = roofLines([r], V100, 1e-4, 1e4)
      const ai = s.arithmetic_intensity
      const roof = Math.min(line.peak, V100.bandwidth_tbps! * ai)
      expect(Math.abs(roof / s.roof_tflops - 1), s.name).toBeLessThan(1e-5) // the server keeps 6 digits
      expect(ai < line.ridge! ? 'memory' : 'compute', s.name).toBe(s.bound)
    }
  })
})

describe('axes and points', () => {
  it('spans whole decades around the values', () => {
    expect(decades([0.083, 640])).toEqual([0.01, 1000])
    expect(decades([5])).toEqual([1, 10])
    expect(decades([1, 100])).toEqual([0.1, 1000]) // never a point on the edge
    expect(decades([0, -1, Number.NaN])).toEqual([1, 10])
  })

  it('keeps the ridge and the peaks inside the axes', () => {
    const { x, y } = axisRanges([row({ arithmetic_intensity: 2, achieved_tflops: 0.5 })], V100)
    expect(x).toEqual([1, 100]) // the ridge at 17.4 FLOPs/byte, with room to its right
    expect(y).toEqual([0.1, 100])
  })

  it('places only rows with FLOPs, bytes and time, sized by the square root of time', () => {
    const rows = [row({}), row({ arithmetic_intensity: 0 }), row({ achieved_tflops: null }), row({ arithmetic_intensity: null })]
    expect(plottable(rows)).toHaveLength(1)
    expect(symbolSize(100, 100)).toBe(36)
    expect(symbolSize(25, 100)).toBeCloseTo(5 + 31 * 0.5)
    expect(symbolSize(0, 100)).toBe(5)
    expect(symbolSize(5, 0)).toBe(5)
  })

  it('builds the chart: a scatter per category, indices back to the rows, roofs under them', () => {
    const rows = [
      row({ name: 'a' }), row({ name: 'b', category: 'elementwise', arithmetic_intensity: 0.1, achieved_tflops: 0.05 }),
      row({ name: 'c', arithmetic_intensity: 0 }),
    ]
    const chart = rooflineChart(rows, V100, {
      x: 'x', y: 'y', roof: (k) => `roof ${k}`, category: (c) => c.toUpperCase(), point: (r) => escapeHtml(r.name),
    })
    expect(chart.rows.map((r) => r.name)).toEqual(['a', 'b'])
    const series = (chart.option as { series: { type: string; name: string; data: { value: number[] }[] }[] }).series
    expect(series.map((s) => `${s.type}:${s.name}`)).toEqual(['line:roof fp32', 'scatter:GEMM', 'scatter:ELEMENTWISE'])
    const b = series[2].data[0].value
    expect(chart.rows[b[2]].name).toBe('b')
    expect(b.slice(0, 2)).toEqual([0.1, 0.05])
    expect(chart.x).toEqual([0.01, 1000]) // 0.1 and 100 FLOPs/byte: a decade's room beyond each
    const none = rooflineChart(rows, null, { x: '', y: '', roof: () => '', category: (c) => c, point: () => '' })
    expect((none.option as { series: { type: string }[] }).series.every((s) => s.type === 'scatter')).toBe(true)
  })

  it('labels decades without long zeros', () => {
    expect([1e-4, 0.001, 0.1, 1, 100, 1000, 1e4].map(axisNumber)).toEqual(['1e-4', '0.001', '0.1', '1', '100', '1000', '1e4'])
  })

  it('gives every category its own colour', () => {
    const known = ['gemm', 'conv', 'attention', 'norm', 'softmax', 'elementwise', 'reduction', 'copy', 'embedding', 'optimizer', 'loss']
    expect(new Set(known.map(categoryColour)).size).toBe(known.length)
    expect(categoryColour('new')).toBe(categoryColour('other'))
  })
})

describe('filters and tables', () => {
  const rows = [
    row({ name: 'aten::mm', time_us: 10 }), row({ name: 'aten::add', category: 'elementwise', dtype: 'fp16', time_us: 30 }),
    row({ name: 'aten::addmm', dtype: 'fp16', time_us: 5, pct_of_roof: null }),
  ]

  it('filters by categories and dtypes (none chosen: all) and by a part of the name', () => {
    expect(filterRows(rows, { categories: [], dtypes: [] })).toHaveLength(3)
    expect(filterRows(rows, { categories: ['gemm'], dtypes: [] }).map((r) => r.name)).toEqual(['aten::mm', 'aten::addmm'])
    expect(filterRows(rows, { categories: ['gemm'], dtypes: ['fp16'] }).map((r) => r.name)).toEqual(['aten::addmm'])
    expect(filterRows(rows, { categories: [], dtypes: [], search: ' ADD' }).map((r) => r.name)).toEqual(['aten::add', 'aten::addmm'])
    expect(parseList('conv,,gemm ,')).toEqual(['conv', 'gemm'])
  })

  it('offers the values most time first', () => {
    expect(optionsBy(rows, 'category')).toEqual(['elementwise', 'gemm'])
    expect(optionsBy(rows, 'dtype')).toEqual(['fp16', 'fp32'])
  })

  it('sorts numbers and text both ways with nulls last', () => {
    expect(sortRows(rows, 'time_us', 'desc').map((r) => r.time_us)).toEqual([30, 10, 5])
    expect(sortRows(rows, 'name', 'asc').map((r) => r.name)).toEqual(['aten::add', 'aten::addmm', 'aten::mm'])
    expect(sortRows(rows, 'pct_of_roof', 'asc').map((r) => r.pct_of_roof)).toEqual([0.3, 0.3, null])
    expect(sortRows(rows, 'pct_of_roof', 'desc').map((r) => r.pct_of_roof)).toEqual([0.3, 0.3, null])
  })

  it('escapes operator names for the HTML tooltip', () => {
    expect(escapeHtml('at::native::<lambda>&"x"')).toBe('at::native::&#60;lambda&#62;&#38;&#34;x&#34;')
  })
})

describe('links of a row', () => {
  it('opens the longest call on the timeline with a margin, and the exact name on the Operators page', () => {
    const r = row({ longest_call_ns: [2_000_000, 3_000_000] })
    expect(timelineRoute(r, 'run', { worker: 'w' })).toEqual({
      name: 'timeline', params: { run: 'run' },
      query: { worker: 'w', t0: '1950000', t1: '3050000', mark: '2000000-3000000' },
    })
    expect(timelineRoute(row({ longest_call_ns: [] }), 'run', {})).toBeNull()
    expect(operatorRoute(r, 'run', {})).toEqual({
      name: 'operators', params: { run: 'run' }, query: { search: '"aten::mm"', select: 'aten::mm' },
    })
  })

  it('opens a kernel on the Kernels page: its exact name, or the start of one longer than a search', () => {
    expect(kernelRoute(row({ name: 'volta_sgemm_128x64_nn' }), 'run', { worker: 'w' })).toEqual({
      name: 'kernels', params: { run: 'run' }, query: { worker: 'w', search: '"volta_sgemm_128x64_nn"' },
    })
    const long = `void at::native::vectorized_elementwise_kernel<4, ${'x'.repeat(300)}>(int)`
    const search = (kernelRoute(row({ name: long }), 'run', {}) as { query: { search: string } }).query.search
    expect(search).toHaveLength(200)
    expect(long.startsWith(search)).toBe(true)
    // 198 characters and the quotes fit exactly
    const fits = 'k'.repeat(198)
    expect((kernelRoute(row({ name: fits }), 'run', {}) as { query: { search: string } }).query.search).toBe(`"${fits}"`)
  })
})
