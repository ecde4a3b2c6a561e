import { describe, expect, it } from 'vitest'
import type { ModuleRow } from '@/api/tables'
import {
  buildModuleTree, countNodes, expandedIds, filterTree, moduleLabel, sortTree, type ModuleNode,
} from '@/components/tables/moduleTree'

function row(name: string, parent: string | null, host = 1): ModuleRow {
  return { name, parent, occurrences: 1, host_self_us: host, host_total_us: host, device_self_us: 0, device_total_us: 0 }
}
const names = (nodes: ModuleNode[]): unknown[] =>
  nodes.map((n) => (n.children ? [n.name, names(n.children)] : n.name))

describe('module tree from parent links', () => {
  const rows = [
    row('Net', null, 10), row('Seq', 'Net', 8), row('Conv_0', 'Seq', 5), row('Conv_1', 'Seq', 2),
    row('Head', 'Net', 1), row('Loss', null, 3),
  ]

  it('nests children under their parents, in the given order', () => {
    const tree = buildModuleTree(rows)
    expect(names(tree)).toEqual([['Net', [['Seq', ['Conv_0', 'Conv_1']], 'Head']], 'Loss'])
    expect(countNodes(tree)).toBe(rows.length)
    expect(tree[0].children![0].children![1].depth).toBe(2)
    expect(new Set(countIds(tree)).size).toBe(rows.length)
  })

  it('makes roots of rows whose parent is missing, themselves, or in a loop', () => {
    const odd = [row('A', 'B'), row('B', 'A'), row('C', 'nowhere'), row('D', 'D'), row('E', 'C')]
    const tree = buildModuleTree(odd)
    expect(countNodes(tree)).toBe(odd.length)
    expect(names(tree)).toEqual(expect.arrayContaining([['C', ['E']], 'D']))
  })

  it('keeps matches with their ancestors when searching', () => {
    const tree = buildModuleTree(rows)
    expect(names(filterTree(tree, 'conv_1'))).toEqual([['Net', [['Seq', ['Conv_1']]]]])
    expect(names(filterTree(tree, 'SEQ'))).toEqual([['Net', [['Seq', ['Conv_0', 'Conv_1']]]]])
    expect(filterTree(tree, 'nothing')).toEqual([])
    expect(filterTree(tree, '  ')).toBe(tree)
    expect(countNodes(tree)).toBe(rows.length) // the input is not changed
  })

  it('sorts siblings only, by number or name', () => {
    const tree = buildModuleTree(rows)
    expect(names(sortTree(tree, 'host_total_us', 'asc'))).toEqual(['Loss', ['Net', ['Head', ['Seq', ['Conv_1', 'Conv_0']]]]])
    expect(names(sortTree(tree, 'name', 'desc'))).toEqual([['Net', [['Seq', ['Conv_1', 'Conv_0']], 'Head']], 'Loss'])
    expect(names(tree)[1]).toBe('Loss')
  })

  it('opens levels down to a depth', () => {
    const tree = buildModuleTree(rows)
    const net = tree[0]
    expect(expandedIds(tree, 1)).toEqual([net.id])
    expect(expandedIds(tree, 2)).toEqual([net.id, net.children![0].id])
    expect(expandedIds(tree, 0)).toEqual([])
  })

  it('drops the nn.Module prefix', () => {
    expect(moduleLabel('nn.Module: Conv2d_0')).toBe('Conv2d_0')
    expect(moduleLabel('Linear')).toBe('Linear')
  })
})

function countIds(nodes: ModuleNode[]): string[] {
  return nodes.flatMap((n) => [n.id, ...(n.children ? countIds(n.children) : [])])
}
