/**
 * A server-side table's state in the URL: sort, order, search and page under a prefix
 * (`e` for the events table, `o` for the operator statistics), defaults left out of the
 * URL. Any change other than the page goes back to page 1.
 */
export type Order = 'asc' | 'desc'

export interface TableQuery {
  sort: string
  order: Order
  search: string
  page: number
}

export type ElOrder = 'ascending' | 'descending' | null

/** The URL query changes for `change` (undefined = remove the parameter). */
export function queryChanges(
  prefix: string,
  change: Partial<TableQuery>,
  defaults: TableQuery,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [key, value] of Object.entries(change) as [keyof TableQuery, string | number][]) {
    out[prefix + key] = value === defaults[key] || value === '' ? undefined : String(value)
  }
  if (!('page' in change)) out[`${prefix}page`] = undefined
  return out
}

/** Element Plus's sort event as the API's sort and order (cleared: the default sort). */
export function fromElSort(prop: string | null, order: ElOrder, defaults: TableQuery): Pick<TableQuery, 'sort' | 'order'> {
  if (!prop || !order) return { sort: defaults.sort, order: defaults.order }
  return { sort: prop, order: order === 'ascending' ? 'asc' : 'desc' }
}

export function toElSort(q: Pick<TableQuery, 'sort' | 'order'>): { prop: string; order: 'ascending' | 'descending' } {
  return { prop: q.sort, order: q.order === 'asc' ? 'ascending' : 'descending' }
}

/** The API's `offset` of a 1-based page. */
export function pageOffset(page: number, size: number): number {
  return Math.max(0, (Math.max(1, page) - 1) * size)
}
