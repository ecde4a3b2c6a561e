/**
 * A server-side table's state (sort, order, page, page size, search, top N of the pie) as
 * URL query parameters, so that a copied link opens the same page of the same rows. Pure
 * functions, unit-tested; `useTableQuery` binds them to the route.
 */
import type { LocationQuery } from 'vue-router'

export type Order = 'asc' | 'desc'

export interface TableState {
  sort: string
  order: Order
  /** 1-based. */
  page: number
  size: number
  search: string
  /** Slices of the top-N pie. */
  top: number
}

export interface TableDefaults {
  sort: string
  order?: Order
  /** The columns the server sorts by; any other `sort` in a URL falls back to the default. */
  sortable: readonly string[]
  /** Rows per page when the URL names none (default DEFAULT_SIZE). */
  size?: number
}

export const PAGE_SIZES = [10, 20, 50, 100] as const
export const TOP_NS = [5, 10, 15, 20] as const
export const DEFAULT_SIZE = 20
export const DEFAULT_TOP = 10
/** The longest search the API accepts. */
export const MAX_SEARCH = 200

function first(query: LocationQuery, name: string): string | undefined {
  const raw = query[name]
  const v = Array.isArray(raw) ? raw[0] : raw
  return typeof v === 'string' && v !== '' ? v : undefined
}

function positiveInt(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,6}$/.test(text)) return undefined
  const n = Number(text)
  return n >= 1 ? n : undefined
}

function oneOf<T extends number>(values: readonly T[], n: number | undefined, fallback: T): T {
  return n !== undefined && (values as readonly number[]).includes(n) ? (n as T) : fallback
}

/**
 * The state a URL query describes; anything missing or invalid is the default. `prefix`
 * tells apart several tables on one page (`esort`, `osort`, ...).
 */
export function readTableState(query: LocationQuery, d: TableDefaults, prefix = ''): TableState {
  const get = (name: string) => first(query, prefix + name)
  const sort = get('sort')
  const order = get('order')
  const size = d.size ?? DEFAULT_SIZE
  const sizes: readonly number[] = [...PAGE_SIZES, size]
  return {
    sort: sort !== undefined && d.sortable.includes(sort) ? sort : d.sort,
    order: order === 'asc' || order === 'desc' ? order : (d.order ?? 'desc'),
    page: positiveInt(get('page')) ?? 1,
    size: oneOf(sizes, positiveInt(get('size')), size),
    search: (get('search') ?? '').slice(0, MAX_SEARCH),
    top: oneOf(TOP_NS, positiveInt(get('top')), DEFAULT_TOP),
  }
}

/**
 * The query changes that move a table from `current` to `current + next`: default values
 * are left out of the URL, and a new search, sort, order or page size goes back to page 1.
 */
export function tableQueryChanges(
  next: Partial<TableState>,
  current: TableState,
  d: TableDefaults,
  prefix = '',
): Record<string, string | undefined> {
  const s = { ...current, ...next }
  s.search = s.search.trim().slice(0, MAX_SEARCH)
  const refilter = (['search', 'sort', 'order', 'size'] as const).some((k) => s[k] !== current[k])
  if (refilter && next.page === undefined) s.page = 1
  const changes: Record<string, string | undefined> = {
    sort: s.sort === d.sort ? undefined : s.sort,
    order: s.order === (d.order ?? 'desc') ? undefined : s.order,
    page: s.page === 1 ? undefined : String(s.page),
    size: s.size === (d.size ?? DEFAULT_SIZE) ? undefined : String(s.size),
    search: s.search || undefined,
    top: s.top === DEFAULT_TOP ? undefined : String(s.top),
  }
  return Object.fromEntries(Object.entries(changes).map(([k, v]) => [prefix + k, v]))
}

/** The query keys of a table (to clear them all when the table changes shape). */
export const TABLE_KEYS = ['sort', 'order', 'page', 'size', 'search', 'top'] as const

/** Clear sort and paging (not the search) when the table's columns change. */
export function resetSortAndPage(): Record<string, undefined> {
  return { sort: undefined, order: undefined, page: undefined }
}

/** The API parameters of the page a state shows. */
export function pageRequest(s: TableState): { sort: string; order: Order; search?: string; offset: number; limit: number } {
  return {
    sort: s.sort,
    order: s.order,
    search: s.search || undefined,
    offset: (s.page - 1) * s.size,
    limit: s.size,
  }
}

/** The last page that has rows (when a URL asks for a page past the end). */
export function lastPage(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size))
}

export type ElOrder = 'ascending' | 'descending' | null

export function toElOrder(order: Order): 'ascending' | 'descending' {
  return order === 'asc' ? 'ascending' : 'descending'
}

/** Element Plus' sort-change to a sort and order; no order (a third click) is the default. */
export function fromElSort(prop: string | null | undefined, order: ElOrder, d: TableDefaults): { sort: string; order: Order } {
  if (!prop || !order) return { sort: d.sort, order: d.order ?? 'desc' }
  return { sort: prop, order: order === 'ascending' ? 'asc' : 'desc' }
}
