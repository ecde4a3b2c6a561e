/**
 * The timeline's state in the URL, both ways. Writes go through a QueryWriter (queryWriter.ts):
 * merged, delayed while panning (`delay`), dropped when they change nothing. Reads: a
 * navigation that did not come from here (an advisor's evidence link to another window or
 * event of this page, a search) is handed to the page through `links`, which moves the view,
 * opens the event (or drops the selection) or searches. What the URL says at first comes back as `initial` (see urlState.ts).
 */
import { onBeforeUnmount, watch } from 'vue'
import { useRoute } from 'vue-router'
import { useQueryUpdate } from '@/composables/useQueryParam'
import { changesNothing, QueryWriter, type QueryChanges } from './queryWriter'
import { parseTimelineQuery, type TimelineUrlState } from './urlState'
import type { Viewport } from './viewport'

export interface UrlLinks {
  /** A link to another window of this page: move the view there. */
  moveTo: (window: Viewport) => void
  /** A link to an event (null: to none, e.g. a range that is no event); `withWindow`: the
   * link sets the window too (no need to move to it). */
  openEvent: (event: number | null, withWindow: boolean) => void
  /** A link that searches (`q`, e.g. a loader named without a range), or '' for none. */
  search: (q: string) => void
  /** Whether the flows switch is on: all flows (`flows=all`). */
  allFlows: (on: boolean) => void
}

export interface TimelineUrl {
  initial: TimelineUrlState
  /** Write changes to the query after `delay` ms (0: at the next tick), merged with those waiting. */
  write: (changes: QueryChanges, delay?: number) => void
}

export function useTimelineUrl(links: UrlLinks): TimelineUrl {
  const route = useRoute()
  const updateQuery = useQueryUpdate()
  const writer = new QueryWriter(route.query)
  let timer: ReturnType<typeof setTimeout> | undefined

  function write(changes: QueryChanges, delay = 0): void {
    writer.add(changes)
    clearTimeout(timer)
    timer = setTimeout(() => {
      const next = writer.take()
      if (!changesNothing(route.query, next)) updateQuery(next)
    }, delay)
  }
  onBeforeUnmount(() => clearTimeout(timer))

  watch(() => route.query, (q) => {
    const state = parseTimelineQuery(q)
    if (state.window && writer.takeForeignWindow(q)) links.moveTo(state.window)
    // A write of ours still waiting is newer than what the URL says. Otherwise the page
    // follows the URL: a link to a range without an event drops the previous selection, a
    // link without `q` the previous search.
    if (!writer.waiting('event')) links.openEvent(state.event, !!state.window)
    if (!writer.waiting('q')) links.search(state.q)
    if (!writer.waiting('flows')) links.allFlows(state.allFlows)
  })

  return { initial: parseTimelineQuery(route.query), write }
}
