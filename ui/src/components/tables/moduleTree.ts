/**
 * The nn.Module hierarchy from the report's flat rows (each names its parent): a tree for
 * the tree table, searched (matches keep their ancestors, so a match is seen in context)
 * and sorted among siblings. Pure, unit-tested.
 */
import type { ModuleRow } from '@/api/tables'

export interface ModuleNode extends ModuleRow {
  id: string
  depth: number
  children?: ModuleNode[]
}

/**
 * Nodes linked to their parents by name. A row whose parent is missing, or whose parent
 * chain loops back to itself, becomes a root; a name given twice links to its first row.
 */
export function buildModuleTree(rows: ModuleRow[]): ModuleNode[] {
  const nodes: ModuleNode[] = rows.map((r, i) => ({ ...r, id: `m${i}`, depth: 0 }))
  const byName = new Map<string, number>()
  rows.forEach((r, i) => {
    if (!byName.has(r.name)) byName.set(r.name, i)
  })
  const parentOf = rows.map((r, i) => {
    const p = r.parent === null || r.parent === undefined ? undefined : byName.get(r.parent)
    return p === undefined || p === i ? -1 : p
  })
  // A parent chain that loops makes its start a root.
  for (let i = 0; i < nodes.length; i += 1) {
    const seen = new Set<number>([i])
    for (let p = parentOf[i]; p !== -1; p = parentOf[p]) {
      if (seen.has(p)) {
        parentOf[i] = -1
        break
      }
      seen.add(p)
    }
  }
  const roots: ModuleNode[] = []
  nodes.forEach((n, i) => {
    const p = parentOf[i]
    if (p === -1) roots.push(n)
    else (nodes[p].children ??= []).push(n)
  })
  const setDepth = (list: ModuleNode[], depth: number): void => {
    for (const n of list) {
      n.depth = depth
      if (n.children) setDepth(n.children, depth + 1)
    }
  }
  setDepth(roots, 0)
  return roots
}

/** The nodes whose name contains `search` (any case), with their ancestors; all when empty. */
export function filterTree(nodes: ModuleNode[], search: string): ModuleNode[] {
  const needle = search.trim().toLowerCase()
  if (!needle) return nodes
  const walk = (list: ModuleNode[]): ModuleNode[] =>
    list.flatMap((n) => {
      if (n.name.toLowerCase().includes(needle)) return [n]
      const kept = n.children ? walk(n.children) : []
      return kept.length ? [{ ...n, children: kept }] : []
    })
  return walk(nodes)
}

/** Siblings ordered by `key` (numbers, or the name as text); a new tree, the input kept. */
export function sortTree(nodes: ModuleNode[], key: keyof ModuleRow, order: 'asc' | 'desc'): ModuleNode[] {
  const sign = order === 'asc' ? 1 : -1
  const cmp = (a: ModuleNode, b: ModuleNode): number => {
    const x = a[key]
    const y = b[key]
    if (typeof x === 'number' && typeof y === 'number') return sign * (x - y)
    return sign * String(x ?? '').localeCompare(String(y ?? ''))
  }
  const walk = (list: ModuleNode[]): ModuleNode[] =>
    [...list].sort(cmp).map((n) => (n.children ? { ...n, children: walk(n.children) } : n))
  return walk(nodes)
}

export function countNodes(nodes: ModuleNode[]): number {
  return nodes.reduce((s, n) => s + 1 + (n.children ? countNodes(n.children) : 0), 0)
}

/** Ids of the nodes down to `depth` levels (0: none) that have children, to open them. */
export function expandedIds(nodes: ModuleNode[], depth: number): string[] {
  const out: string[] = []
  const walk = (list: ModuleNode[]) => {
    for (const n of list) {
      if (n.children?.length && n.depth < depth) {
        out.push(n.id)
        walk(n.children)
      }
    }
  }
  walk(nodes)
  return out
}

/** `nn.Module: Conv2d_0` -> `Conv2d_0` (the prefix says what every row is). */
export function moduleLabel(name: string): string {
  return name.replace(/^nn\.Module:\s*/, '')
}
