/**
 * The row an advisor's evidence link lands on: `select=<name>` in the URL names it by the
 * table's key column (an operator's or kernel's name, an operator type). Pure, so the
 * mapping from the query to the highlighted row is unit-tested.
 */

/** The most characters of a name a link selects by (MindSpore scope names run long). */
const MAX_SELECT = 1000

/** `select` from a query value (first of repeats), trimmed to the longest name; '' if none. */
export function parseSelect(raw: unknown): string {
  const v = Array.isArray(raw) ? raw[0] : raw
  return typeof v === 'string' ? v.slice(0, MAX_SELECT) : ''
}

/** A test for the selected rows (those whose `key` is exactly `select`); none when empty. */
export function rowSelector<Row extends object>(select: string, key: string): ((row: Row) => boolean) | undefined {
  if (!select) return undefined
  return (row) => (row as Record<string, unknown>)[key] === select
}

/**
 * The row key to send as `focus` (the server answers the page that holds that row): the
 * selected name until a page is chosen in the URL (then the person pages on); none per call.
 */
export function focusKey(select: string, pageInQuery: boolean, perCall = false): string | undefined {
  return select && !pageInQuery && !perCall ? select : undefined
}

/** The page (1-based) of an answer that found the focused row; null if it found none. */
export function focusedPage(answer: { offset: number; limit: number; focus_index?: number | null }): number | null {
  if (answer.focus_index === undefined || answer.focus_index === null || answer.limit < 1) return null
  return Math.floor(answer.offset / answer.limit) + 1
}

/** The page (1-based, `size` rows a page) of the first row `selected` says yes to; null if none. */
export function pageOfRow<Row>(rows: Row[], selected: (row: Row) => boolean, size: number): number | null {
  const at = rows.findIndex(selected)
  return at < 0 || size < 1 ? null : Math.floor(at / size) + 1
}
