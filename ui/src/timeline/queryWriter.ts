/**
 * The timeline's writes to the URL query, batched: changes made while a gesture goes on are
 * merged and written once it pauses, and a write that would change nothing is dropped (a
 * navigation re-renders the run's frame). It remembers the window (`t0`/`t1`) it last wrote
 * or opened with, so the page can tell its own URL changes from a link to another window (an
 * advisor's evidence link), which then wins over a window write still waiting. Plain state
 * without Vue, so it is tested alone; useTimelineUrl.ts gives it the route and the timer.
 */
export type QueryChanges = Record<string, string | undefined>
type Query = Record<string, unknown>

/** The window as the URL writes it: `t0-t1`, an edge left out as empty. */
export function windowKey(query: Query): string {
  return `${query.t0 ?? ''}-${query.t1 ?? ''}`
}

/** Whether writing `changes` over `current` leaves the query as it is ('' and undefined: absent). */
export function changesNothing(current: Query, changes: QueryChanges): boolean {
  return Object.entries(changes).every(([k, v]) => (current[k] ?? undefined) === (v || undefined))
}

export class QueryWriter {
  private pending: QueryChanges = {}
  private lastWindow: string

  constructor(initial: Query) {
    this.lastWindow = windowKey(initial)
  }

  /** Queue changes; a later change of the same key replaces an earlier one. */
  add(changes: QueryChanges): void {
    Object.assign(this.pending, changes)
  }

  /** The queued changes, to write now (the queue is empty afterwards). */
  take(): QueryChanges {
    const next = this.pending
    this.pending = {}
    if ('t0' in next || 't1' in next) this.lastWindow = windowKey(next)
    return next
  }

  /** Whether a change of `key` waits to be written (the URL's value is about to be replaced). */
  waiting(key: string): boolean {
    return key in this.pending
  }

  /**
   * Whether the query's window is someone else's (not the one last written here). Our own
   * writes set the last window first, so a different one came from a link: it is adopted,
   * and a window write of ours still waiting is dropped so the link wins.
   */
  takeForeignWindow(query: Query): boolean {
    const key = windowKey(query)
    if (key === this.lastWindow) return false
    this.lastWindow = key
    delete this.pending.t0
    delete this.pending.t1
    return true
  }
}
