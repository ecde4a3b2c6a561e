/**
 * What the timeline's panel shows and the track view marks: the selected event (its index
 * in the URL's `event`, its details from the server, its launch chain as arrows), the
 * search (`q`) with its hits, and whether the panel is open on which tab. An event picked
 * from a list or opened by a link is selected by index before its details (and so its
 * place) are known: the view moves to it once they land (`focusPending`), unless the link
 * also set the window. With ranks stacked, `codec` asks each event of its rank and puts the
 * answers on the stack's axis (rankEvents.ts).
 */
import { computed, ref, shallowRef, watch } from 'vue'
import { useRunResource } from '@/composables/useRunContext'
import type { Resource } from '@/composables/useResource'
import { launchLinks } from './launchLinks'
import type { QueryChanges } from './queryWriter'
import { PLAIN_CODEC, type EventCodec } from './rankEvents'
import type { EventBrief, EventResponse, SearchResponse, Selection } from './types'
import type { TimelineUrlState } from './urlState'

export type PanelTab = 'details' | 'search'

/** Search hits asked for at once: the panel lists them, the track view marks the matches. */
const SEARCH_LIMIT = 100

export function useTimelineSelection(
  initial: TimelineUrlState,
  write: (changes: QueryChanges) => void,
  /** Move the view to an event (the page's track view). */
  focus: (e: EventBrief) => void,
  codec: () => EventCodec = () => PLAIN_CODEC,
) {
  const searchText = ref(initial.q)
  const query = ref(initial.q)
  const eventIndex = ref<number | null>(initial.event)
  const selection = shallowRef<Selection | null>(null)
  const tab = ref<PanelTab>(initial.q && initial.event === null ? 'search' : 'details')
  const panelOpen = ref(initial.event !== null || !!initial.q)
  let focusPending = initial.event !== null && !initial.window

  const details = shown(useRunResource<EventResponse>('timeline/event',
    () => (eventIndex.value === null ? null : codec().details(eventIndex.value))), (r) => codec().event(r))
  const search = shown(useRunResource<SearchResponse>('timeline/search',
    () => (query.value ? { q: query.value, limit: SEARCH_LIMIT, ...codec().search() } : null)), (r) => codec().hits(r))

  watch(() => details.data.value, (found) => {
    const d = found?.event
    if (!d || d.index !== eventIndex.value) return
    selection.value = { index: d.index, track: d.track, depth: d.depth, start_ns: d.start_ns, dur_ns: d.dur_ns, name: d.name }
    if (focusPending) {
      focusPending = false
      focus(d)
    }
  })

  /** The track view's selection (a click on an event, or on nothing). */
  function select(sel: Selection | null): void {
    selection.value = sel
    eventIndex.value = sel?.index ?? null
    write({ event: sel ? String(sel.index) : undefined })
    if (sel) {
      panelOpen.value = true
      tab.value = 'details'
    }
  }

  /** An event named in a list (search hit, launch chain): select it and move the view to it. */
  function pick(e: EventBrief): void {
    tab.value = 'details'
    if (e.index !== eventIndex.value) {
      selection.value = null
      eventIndex.value = e.index
      write({ event: String(e.index) })
    }
    focus(e)
  }

  /** An event named by a link to this page, or none (see useTimelineUrl.ts). */
  function openEvent(index: number | null, withWindow: boolean): void {
    if (index === eventIndex.value) return
    if (index === null) {
      selection.value = null
      eventIndex.value = null
      focusPending = false
      if (query.value) tab.value = 'search'
      else panelOpen.value = false
      return
    }
    eventIndex.value = index
    focusPending = !withWindow
    panelOpen.value = true
    tab.value = 'details'
  }

  /** Another worker or span is another trace: its event indices mean other events. */
  function forget(): void {
    selection.value = null
    eventIndex.value = null
    focusPending = false
  }

  /** A search named by a link to this page ('' drops the search). */
  function followSearch(q: string): void {
    if (q === query.value) return
    searchText.value = q
    query.value = q
    if (q) {
      panelOpen.value = true
      if (eventIndex.value === null) tab.value = 'search'
    } else if (tab.value === 'search') {
      tab.value = 'details'
      if (eventIndex.value === null) panelOpen.value = false
    }
  }

  function submitSearch(): void {
    const q = searchText.value.trim()
    query.value = q
    write({ q: q || undefined })
    if (q) {
      panelOpen.value = true
      tab.value = 'search'
    }
  }

  function clearSearch(): void {
    searchText.value = ''
    submitSearch()
  }

  function closePanel(): void {
    panelOpen.value = false
    select(null)
  }

  const links = computed(() => launchLinks(details.data.value?.event, selection.value))

  return {
    searchText, query, eventIndex, selection, tab, panelOpen, details, search, links,
    select, pick, openEvent, followSearch, forget, submitSearch, clearSearch, closePanel,
  }
}

/** The resource with its answer as drawn (`as`: the codec's mapping). */
function shown<T>(res: Resource<T>, as: (data: T) => T): Resource<T> {
  const data = computed(() => (res.data.value === null ? null : as(res.data.value)))
  return { ...res, data: data as unknown as Resource<T>['data'] }
}
