/**
 * Columns of the table pages: what each holds (a duration, a count, a share...), how its
 * cells read, and which can be summed, so the pie beside a table can show "top N and the
 * rest" of the column the table is sorted by. Pure; the pages choose which columns to show.
 */
import type { MessageKey } from '@/i18n'
import { formatBytes, formatCount, formatNumber, formatPct, formatShare, formatSig, formatUs } from '@/format'

export type CellKind = 'text' | 'us' | 'count' | 'share' | 'pct' | 'number' | 'sig' | 'bool' | 'bytes' | 'pipes'

export interface Column {
  key: string
  label: MessageKey
  kind: CellKind
  /** The server sorts by it. */
  sortable?: boolean
  width?: number
  minWidth?: number
  /** A tooltip over the header, saying what the column measures. */
  hint?: MessageKey
  /** Stays in view when the table scrolls sideways (the row's name). */
  fixed?: boolean
  /** Text cut to the cell shows itself whole in a tooltip (default); false when the page's
   * cell has its own title. */
  tooltip?: boolean
}

export interface ColumnGroup {
  label: MessageKey
  children: Column[]
}

export type ColumnSpec = Column | ColumnGroup

export function isGroup(c: ColumnSpec): c is ColumnGroup {
  return 'children' in c
}

export function flatColumns(specs: ColumnSpec[]): Column[] {
  return specs.flatMap((c) => (isGroup(c) ? c.children : [c]))
}

/** The text of a cell (booleans are drawn by the table, in the current language). */
export function formatCell(kind: CellKind, value: unknown): string {
  if (value === null || value === undefined || value === '') return '–'
  switch (kind) {
    case 'us':
      return formatUs(Number(value))
    case 'count':
      return formatCount(Number(value))
    case 'share':
      return formatShare(Number(value))
    case 'pct':
      return formatPct(Number(value))
    case 'number':
      return formatNumber(Number(value))
    case 'sig':
      return formatSig(Number(value))
    case 'bytes':
      return formatBytes(Number(value))
    case 'pipes':
      return formatPipes(value as Record<string, number>)
    default:
      return String(value)
  }
}

/**
 * Ascend PMU pipe ratios (`aiv_mte2_ratio: 0.98`) as "mte2 98 % · mte3 35 % · vec 6 %":
 * the three busiest pipes, the core prefix dropped (a kernel runs on one kind of core).
 */
export function formatPipes(ratios: Record<string, number>): string {
  const top = Object.entries(ratios)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([k, v]) => `${k.replace(/^ai[cv]_/, '').replace(/_ratio$/, '')} ${Math.round(v * 100)} %`)
  return top.length ? top.join(' · ') : '–'
}

/** Columns whose sum over rows means something (the server sums the same ones). */
export function isAdditive(key: string): boolean {
  return key === 'calls' || (key.endsWith('_us') && !/^(mean|min|max|start)_/.test(key))
}

/** The column the pie shows: the sort column when it adds up, else `fallback`. */
export function pieMetric(sort: string, fallback: string): string {
  return isAdditive(sort) ? sort : fallback
}

export interface Slice {
  name: string
  value: number
}

/**
 * The top rows by `metric` and one slice for the rest of `sum` (all matching rows, not
 * only those fetched); rows without time are left out, as a pie cannot show them.
 */
export function topSlices<Row extends object>(
  rows: Row[],
  label: (row: Row) => string,
  metric: string,
  sum: number | undefined,
  n: number,
  othersLabel: string,
): Slice[] {
  const value = (r: Row) => Number((r as Record<string, unknown>)[metric] ?? 0)
  const top = [...rows]
    .sort((a, b) => value(b) - value(a))
    .slice(0, n)
    .filter((r) => value(r) > 0)
  const slices = top.map((r) => ({ name: label(r), value: value(r) }))
  const shown = slices.reduce((s, x) => s + x.value, 0)
  const rest = (sum ?? shown) - shown
  if (rest > Math.max(1e-9 * Math.abs(sum ?? 0), 1e-6)) slices.push({ name: othersLabel, value: rest })
  return slices
}

/** A long name cut in the middle, keeping its start and end (kernel names run to 300 chars). */
export function shorten(name: string, max = 48): string {
  if (name.length <= max) return name
  const head = Math.ceil((max - 1) * 0.6)
  return `${name.slice(0, head)}…${name.slice(name.length - (max - 1 - head))}`
}

/** The frames of a call stack as the report joins them (`;`, with or without line breaks). */
export function stackFrames(stack: string | undefined | null): string[] {
  if (!stack) return []
  return stack
    .split(/;\s*\r?\n?|\r?\n/)
    .map((f) => f.trim())
    .filter(Boolean)
}

/** The frame to show for a call stack: the first outside installed packages (the user's code). */
export function userFrame(frames: string[]): string {
  return frames.find((f) => !/site-packages|dist-packages|<built-in|^built-in/.test(f)) ?? frames[0] ?? ''
}

/** A frame without its folders: `/long/path/train.py(354): train` -> `train.py(354): train`. */
export function frameLabel(frame: string): string {
  return frame.replace(/^.*[/\\](?=[^/\\]*\(\d+\))/, '')
}

/** A kernel's name without its return type and parameter list (C++ signatures run long). */
export function kernelLabel(name: string): string {
  let s = name.replace(/^void\s+/, '')
  if (s.endsWith(')')) {
    let depth = 0
    for (let i = s.length - 1; i >= 0; i -= 1) {
      if (s[i] === ')') depth += 1
      else if (s[i] === '(') depth -= 1
      if (depth === 0) {
        if (i > 0) s = s.slice(0, i)
        break
      }
    }
  }
  return s.trim()
}

/** Input shapes without the empty entries (scalars, None): `[[], [32, 64], []]` -> `[32,64]`;
 * the report carries them as lists (one entry per input), older answers as JSON text. */
export function compactShape(shape: unknown): string {
  if (shape === undefined || shape === null || shape === '') return ''
  const list = typeof shape === 'string' ? parseShape(shape) : shape
  if (!Array.isArray(list)) return String(shape)
  const kept = list.filter((s) => !(Array.isArray(s) && s.length === 0) && s !== null && s !== '')
  return kept.map((s) => JSON.stringify(s)).join(' ')
}

function parseShape(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Every input's shape on one line, empty ones included: `[[32,64],[],[64]]`. */
export function shapeText(shape: unknown): string {
  return Array.isArray(shape) ? JSON.stringify(shape) : String(shape ?? '')
}
