/**
 * MindSpore's own FLOPs (`/runs/<run>/mindspore-flops`) shown as MindInsight 2.3.1 showed
 * them: the summary's figures ("--" where the file has none, MindInsight's mark), the
 * per-operator table's columns (those the file's layout fills), and the scope sankey's
 * ECharts option. MindSpore's units are kept (MFLOPs, GFLOPS, percentages 0-100), never
 * converted to the model's. Pure, unit-tested.
 */
import type { MindSporeFlopsOp, MindSporeFlopsScope, MindSporeFlopsSummary } from '@/api/perf'
import type { ChartOption } from '@/components/echarts'
import type { Column } from '@/components/tables/columns'
import type { MessageKey } from '@/i18n'
import { escapeHtml } from './roofline'

/** What MindInsight prints for a figure the file does not have. */
export const ABSENT = '--'

const FIGURE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 })

/** A MindSpore figure as its files write it (up to 3 decimals, grouped); "--" when absent. */
export function formatFigure(n: number | null | undefined): string {
  return n === null || n === undefined || !Number.isFinite(n) ? ABSENT : FIGURE.format(n)
}

export interface SummaryFigure {
  key: keyof MindSporeFlopsSummary
  label: MessageKey
  value: string
}

/** The summary's figures in MindInsight's order: the totals, then the cube and vector parts. */
export function summaryFigures(s: MindSporeFlopsSummary): SummaryFigure[] {
  const keys: [keyof MindSporeFlopsSummary, MessageKey][] = [
    ['mflops', 'roofline.msFlops.mflops'],
    ['gflops_per_second', 'roofline.msFlops.gflops'],
    ['utilization_percent', 'roofline.msFlops.utilization'],
    ['cube_mflops', 'roofline.msFlops.cubeMflops'],
    ['cube_gflops_per_second', 'roofline.msFlops.cubeGflops'],
    ['vector_mflops', 'roofline.msFlops.vectorMflops'],
    ['vector_gflops_per_second', 'roofline.msFlops.vectorGflops'],
  ]
  return keys.map(([key, label]) => ({ key, label, value: formatFigure(s[key]) }))
}

/** The per-operator figures drawn with `formatFigure` (the table's slots). */
export const FIGURE_KEYS = [
  'mflops', 'gflops_per_second', 'utilization_percent',
  'cube_mflops', 'cube_gflops_per_second', 'cube_utilization_percent',
  'vector_mflops', 'vector_gflops_per_second', 'vector_utilization_percent',
] as const

const OP_COLUMNS: Column[] = [
  { key: 'name', label: 'roofline.msFlops.op.name', kind: 'text', sortable: true, minWidth: 260, fixed: true },
  { key: 'mflops', label: 'roofline.msFlops.op.mflops', kind: 'number', sortable: true, width: 100 },
  { key: 'gflops_per_second', label: 'roofline.msFlops.op.gflops', kind: 'number', sortable: true, width: 100 },
  { key: 'utilization_percent', label: 'roofline.msFlops.op.utilization', kind: 'number', sortable: true, width: 100 },
  { key: 'cube_mflops', label: 'roofline.msFlops.op.cubeMflops', kind: 'number', sortable: true, width: 110 },
  { key: 'cube_gflops_per_second', label: 'roofline.msFlops.op.cubeGflops', kind: 'number', sortable: true, width: 110 },
  { key: 'cube_utilization_percent', label: 'roofline.msFlops.op.cubeUtilization', kind: 'number', sortable: true, width: 110 },
  { key: 'vector_mflops', label: 'roofline.msFlops.op.vectorMflops', kind: 'number', sortable: true, width: 110 },
  { key: 'vector_gflops_per_second', label: 'roofline.msFlops.op.vectorGflops', kind: 'number', sortable: true, width: 110 },
  { key: 'vector_utilization_percent', label: 'roofline.msFlops.op.vectorUtilization', kind: 'number', sortable: true, width: 110 },
  { key: 'avg_time_us', label: 'roofline.msFlops.op.avgTime', kind: 'us', sortable: true, width: 100 },
  { key: 'calls', label: 'roofline.msFlops.op.calls', kind: 'count', sortable: true, width: 70 },
  { key: 'lines', label: 'roofline.msFlops.op.lines', kind: 'count', sortable: true, width: 70, hint: 'roofline.msFlops.op.linesHint' },
]

/**
 * The table's columns: the name and MFLOPs always, every other figure only where some
 * operator has it (a 1.x file has no cube/vector parts, a 2.x file no utilisation of the
 * total, an operator outside the AI Core detail file no time), and the lines per name
 * only where a name repeats (2.x writes one line per task).
 */
export function opColumns(ops: MindSporeFlopsOp[]): Column[] {
  return OP_COLUMNS.filter((c) => {
    if (c.key === 'name' || c.key === 'mflops') return true
    if (c.key === 'lines') return ops.some((o) => o.lines > 1)
    return ops.some((o) => o[c.key as keyof MindSporeFlopsOp] !== null)
  })
}

/** Operators whose name holds `search` (any case). */
export function searchOps(ops: MindSporeFlopsOp[], search: string): MindSporeFlopsOp[] {
  const needle = search.trim().toLowerCase()
  return needle ? ops.filter((o) => o.name.toLowerCase().includes(needle)) : ops
}

export interface ScopeGraph {
  nodes: { name: string }[]
  links: { source: string; target: string; value: number }[]
  /** Links left out: an unknown end, a loop, a cycle (a sankey must be acyclic), a value <= 0. */
  dropped: number
  /** Most nodes at one depth (the chart's height follows it). */
  widest: number
  /** Depths from the roots to the deepest scope (its width follows it). */
  levels: number
}

/** Whether `to` can be reached from `from` over `next`. */
function reaches(next: Map<string, string[]>, from: string, to: string): boolean {
  const seen = new Set([from])
  const stack = [from]
  while (stack.length) {
    const n = stack.pop()!
    if (n === to) return true
    for (const m of next.get(n) ?? []) if (!seen.has(m)) seen.add(m), stack.push(m)
  }
  return false
}

/** Nodes in an order where every link goes forward, or null when the links have a cycle. */
function topoOrder(names: string[], links: ScopeGraph['links']): string[] | null {
  const indegree = new Map(names.map((n) => [n, 0]))
  const next = new Map<string, string[]>()
  for (const l of links) {
    indegree.set(l.target, indegree.get(l.target)! + 1)
    next.set(l.source, [...(next.get(l.source) ?? []), l.target])
  }
  const order = names.filter((n) => indegree.get(n) === 0)
  for (let i = 0; i < order.length; i++) {
    for (const m of next.get(order[i]) ?? []) {
      indegree.set(m, indegree.get(m)! - 1)
      if (indegree.get(m) === 0) order.push(m)
    }
  }
  return order.length === names.length ? order : null
}

/**
 * The scope file as a graph ECharts' sankey can draw: nodes once each, links between known
 * nodes with a positive value, in file order; where the links close a cycle (a name scope
 * at two depths) each link that would close one is left out (ECharts throws on a cycle).
 */
export function scopeGraph(scope: MindSporeFlopsScope): ScopeGraph {
  const names = [...new Set(scope.nodes.map((n) => n.name))]
  const known = new Set(names)
  let links = scope.links.filter((l) => known.has(l.source) && known.has(l.target) && l.source !== l.target && l.value > 0)
  let order = topoOrder(names, links)
  if (!order) {
    const next = new Map<string, string[]>()
    links = links.filter((l) => {
      if (reaches(next, l.target, l.source)) return false
      next.set(l.source, [...(next.get(l.source) ?? []), l.target])
      return true
    })
    order = topoOrder(names, links)!
  }
  const depth = new Map(names.map((n) => [n, 0]))
  const next = new Map<string, string[]>()
  for (const l of links) next.set(l.source, [...(next.get(l.source) ?? []), l.target])
  for (const n of order) for (const m of next.get(n) ?? []) depth.set(m, Math.max(depth.get(m)!, depth.get(n)! + 1))
  const perDepth = new Map<number, number>()
  for (const d of depth.values()) perDepth.set(d, (perDepth.get(d) ?? 0) + 1)
  return {
    nodes: names.map((name) => ({ name })),
    links: links.map((l) => ({ source: l.source, target: l.target, value: l.value })),
    dropped: scope.links.length - links.length,
    widest: Math.max(0, ...perDepth.values()),
    levels: perDepth.size,
  }
}

/** Height in px: room for the widest depth's labels (28 px a node), 320-1400 px. */
export function sankeyHeight(graph: ScopeGraph): number {
  return Math.min(1400, Math.max(320, 40 + 28 * graph.widest))
}

/** Room for a depth's nodes and labels (px): the chart scrolls sideways below this per depth. */
export const LEVEL_WIDTH = 190

/** The narrowest the chart may be (px) before it scrolls sideways: every depth's labels readable. */
export function sankeyMinWidth(graph: ScopeGraph): number {
  return LEVEL_WIDTH * Math.max(1, graph.levels)
}

export interface SankeyTexts {
  /** "{v} MFLOPs" */
  mflops: (value: string) => string
}

/** ECharts' sankey of the scopes, as MindInsight drew it: links sized by MFLOPs, left to right. */
export function sankeyOption(graph: ScopeGraph, texts: SankeyTexts): ChartOption {
  return {
    tooltip: {
      trigger: 'item',
      confine: true,
      formatter: (p: { dataType?: string; data: { source?: string; target?: string; name?: string }; value: number }) => {
        const what = p.dataType === 'edge'
          ? `${escapeHtml(p.data.source ?? '')} → ${escapeHtml(p.data.target ?? '')}`
          : escapeHtml(p.data.name ?? '')
        return `${what}<br/><b>${escapeHtml(texts.mflops(formatFigure(p.value)))}</b>`
      },
    },
    series: [{
      type: 'sankey',
      left: 8,
      right: LEVEL_WIDTH - 20,
      top: 12,
      bottom: 12,
      nodeAlign: 'left',
      nodeGap: 12,
      draggable: false,
      emphasis: { focus: 'adjacency' },
      data: graph.nodes,
      links: graph.links,
      // a label has its depth's room; one that would cover another is hidden (the tooltip names it)
      label: { fontSize: 11, overflow: 'truncate', width: LEVEL_WIDTH - 30 },
      labelLayout: { hideOverlap: true },
      lineStyle: { color: 'gradient', curveness: 0.5, opacity: 0.35 },
    }],
  }
}
