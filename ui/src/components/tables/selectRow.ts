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
