import { describe, expect, it } from 'vitest'
import type { MindSporeFlopsOp, MindSporeFlopsScope, MindSporeFlopsSummary } from '@/api/perf'
import {
  ABSENT, LEVEL_WIDTH, formatFigure, opColumns, sankeyHeight, sankeyMinWidth, sankeyOption, scopeGraph, searchOps,
  summaryFigures,
} from '@/components/perf/mindsporeFlops'
import { sortRows } from '@/components/perf/roofline'

/** profiler_fixtures' flops_summary_0.json (MindSpore 1.x: no cube/vector parts). */
const SUMMARY: MindSporeFlopsSummary = {
  mflops: 8167.743, gflops_per_second: 9868.936, utilization_percent: 3.765,
  cube_mflops: null, cube_gflops_per_second: null, vector_mflops: null, vector_gflops_per_second: null,
}

function op(over: Partial<MindSporeFlopsOp>): MindSporeFlopsOp {
  return {
    name: 'Default/Cast-op6', mflops: 333, gflops_per_second: 333, utilization_percent: 33,
    cube_mflops: null, cube_gflops_per_second: null, cube_utilization_percent: null,
    vector_mflops: null, vector_gflops_per_second: null, vector_utilization_percent: null,
    lines: 1, lines_mflops: 333, avg_time_us: null, calls: null, ...over,
  }
}

describe('MindSpore FLOPs summary', () => {
  it('prints the file’s figures and "--" for the parts it has not', () => {
    const f = summaryFigures(SUMMARY)
    expect(f.map((x) => x.key)).toEqual([
      'mflops', 'gflops_per_second', 'utilization_percent',
      'cube_mflops', 'cube_gflops_per_second', 'vector_mflops', 'vector_gflops_per_second',
    ])
    expect(f.map((x) => x.value)).toEqual(['8,167.743', '9,868.936', '3.765', ABSENT, ABSENT, ABSENT, ABSENT])
    expect(ABSENT).toBe('--')
  })

  it('prints a 2.x summary’s parts, and a missing utilisation as "--"', () => {
    const f = summaryFigures({
      ...SUMMARY, utilization_percent: null, cube_mflops: 0, cube_gflops_per_second: 12.5, vector_mflops: 1234567.8915,
      vector_gflops_per_second: 0.0004,
    })
    expect(f.map((x) => x.value)).toEqual(['8,167.743', '9,868.936', ABSENT, '0', '12.5', '1,234,567.892', '0'])
    expect(formatFigure(Number.NaN)).toBe(ABSENT)
    expect(formatFigure(undefined)).toBe(ABSENT)
  })
})

describe('MindSpore FLOPs per operator', () => {
  it('shows the figures some operator has, the lines only where a name repeats', () => {
    const keys = (ops: MindSporeFlopsOp[]) => opColumns(ops).map((c) => c.key)
    // 1.x, no AI Core detail file: the totals only
    expect(keys([op({})])).toEqual(['name', 'mflops', 'gflops_per_second', 'utilization_percent'])
    expect(keys([op({}), op({ name: 'b', avg_time_us: 12.3, calls: 4 })])).toEqual([
      'name', 'mflops', 'gflops_per_second', 'utilization_percent', 'avg_time_us', 'calls',
    ])
    // 2.x: cube and vector parts, one line per task
    const cv = op({
      gflops_per_second: null, utilization_percent: null, cube_mflops: 1, cube_gflops_per_second: 2,
      cube_utilization_percent: 3, vector_mflops: 4, vector_gflops_per_second: 5, vector_utilization_percent: 6, lines: 3,
    })
    expect(keys([cv])).toEqual([
      'name', 'mflops', 'cube_mflops', 'cube_gflops_per_second', 'cube_utilization_percent',
      'vector_mflops', 'vector_gflops_per_second', 'vector_utilization_percent', 'lines',
    ])
    expect(keys([])).toEqual(['name', 'mflops'])
  })

  it('searches names in any case, and sorts by average time as served (no time last, order kept)', () => {
    const ops = [op({ name: 'A/x', avg_time_us: null }), op({ name: 'B/y', avg_time_us: 5 }),
      op({ name: 'C/x', avg_time_us: 9 }), op({ name: 'D/z', avg_time_us: null })]
    expect(searchOps(ops, ' /X ').map((o) => o.name)).toEqual(['A/x', 'C/x'])
    expect(searchOps(ops, '')).toBe(ops)
    expect(sortRows(ops, 'avg_time_us', 'desc').map((o) => o.name)).toEqual(['C/x', 'B/y', 'A/x', 'D/z'])
  })
})

function scope(links: [string, string, number][], extra: string[] = []): MindSporeFlopsScope {
  const names = [...new Set([...links.flatMap(([a, b]) => [a, b]), ...extra])]
  return { nodes: names.map((name) => ({ name })), links: links.map(([source, target, value]) => ({ source, target, value })), max_scope_num: 3 }
}

describe('MindSpore FLOPs scope sankey', () => {
  it('keeps a tree as it is, and sizes the chart by its widest and deepest levels', () => {
    const s = scope([['Total', 'Default', 10], ['Total', 'Gradients', 5], ['Default', 'a(Default)', 6],
      ['Default', 'b(Default)', 4], ['Gradients', 'a(Gradients)', 5]])
    const g = scopeGraph(s)
    expect(g.links).toEqual(s.links)
    expect(g.nodes).toEqual(s.nodes)
    expect(g.dropped).toBe(0)
    expect(g.widest).toBe(3) // a(Default), b(Default), a(Gradients)
    expect(g.levels).toBe(3) // Total, Default/Gradients, their children
    expect(sankeyHeight(g)).toBe(320)
    expect(sankeyHeight({ ...g, widest: 40 })).toBe(40 + 28 * 40)
    expect(sankeyHeight({ ...g, widest: 400 })).toBe(1400)
    expect(sankeyMinWidth(g)).toBe(3 * LEVEL_WIDTH)
    // a node deeper on one path than another counts at its deepest
    expect(scopeGraph(scope([['T', 'a', 1], ['a', 'b', 1], ['T', 'b', 1]])).levels).toBe(3)
  })

  it('leaves out what ECharts cannot draw: unknown ends, loops, cycles, empty links, twice-named nodes', () => {
    const s = scope([['Total', 'A', 3], ['A', 'B', 2], ['B', 'A', 1], ['B', 'B', 1], ['A', 'C', 0]])
    s.nodes.push({ name: 'A' })
    s.links.push({ source: 'A', target: 'nowhere', value: 1 })
    const g = scopeGraph(s)
    expect(g.nodes.map((n) => n.name)).toEqual(['Total', 'A', 'B', 'C'])
    expect(g.links.map((l) => `${l.source}>${l.target}`)).toEqual(['Total>A', 'A>B'])
    expect(g.dropped).toBe(4)
  })

  it('draws the links sized by MFLOPs, with the value in the tooltip (escaped)', () => {
    const g = scopeGraph(scope([['Total', 'x<y>(Default)', 1234.5]]))
    const option = sankeyOption(g, { mflops: (v) => `${v} MFLOPs` }) as {
      series: { type: string; data: unknown; links: unknown }[]
      tooltip: { formatter: (p: unknown) => string }
    }
    expect(option.series[0]).toMatchObject({ type: 'sankey', data: g.nodes, links: g.links })
    const edge = option.tooltip.formatter({ dataType: 'edge', data: g.links[0], value: 1234.5 })
    expect(edge).toBe('Total → x&#60;y&#62;(Default)<br/><b>1,234.5 MFLOPs</b>')
    expect(option.tooltip.formatter({ dataType: 'node', data: g.nodes[0], value: 1234.5 })).toContain('Total<br/>')
  })
})
