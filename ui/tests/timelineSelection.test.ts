import { effectScope, nextTick, shallowRef, ref } from 'vue'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Resource } from '@/composables/useResource'
import type { EventBrief, EventDetails } from '@/timeline/types'
import { parseTimelineQuery } from '@/timeline/urlState'

/** The resources the composable asks for, by view, with their request getters. */
const asked: Record<string, { params: () => unknown; resource: Resource<unknown> }> = {}
vi.mock('@/composables/useRunContext', () => ({
  useRunResource: (view: string, params: () => unknown) => {
    const resource = { data: shallowRef(null), error: shallowRef(null), loading: ref(false), reload: () => {} }
    asked[view] = { params, resource }
    return resource
  },
}))
const { useTimelineSelection } = await import('@/timeline/useTimelineSelection')

function detailsOf(index: number): { event: EventDetails } {
  return {
    event: {
      index, name: `e${index}`, kind: 'kernel', track: 1, start_ns: 100 * index, dur_ns: 5, category: '', depth: 0,
      track_info: null, args: {}, parents: [], callers: [], launched: [], launched_total: 0, origin_ns: 0, version: 1,
    },
  }
}

function setup(query: Record<string, string> = {}) {
  const writes: Record<string, string | undefined>[] = []
  const focused: EventBrief[] = []
  const scope = effectScope()
  const sel = scope.run(() => useTimelineSelection(parseTimelineQuery(query), (c) => writes.push(c), (e) => focused.push(e)))!
  return { sel, writes, focused }
}

async function land(index: number): Promise<void> {
  asked['timeline/event']!.resource.data.value = detailsOf(index)
  await nextTick()
}

beforeEach(() => {
  for (const k of Object.keys(asked)) delete asked[k]
})

describe('useTimelineSelection', () => {
  it('opens on what the URL names and moves to a linked event once its details land', async () => {
    const { sel, focused } = setup({ event: '3', q: 'conv' })
    expect(sel.panelOpen.value).toBe(true)
    expect(sel.tab.value).toBe('details')
    expect(asked['timeline/event']!.params()).toEqual({ index: 3 })
    expect(asked['timeline/search']!.params()).toEqual({ q: 'conv', limit: 100 })
    await land(3)
    expect(sel.selection.value?.index).toBe(3)
    expect(focused.map((e) => e.index)).toEqual([3])
  })

  it('does not move when the URL also gives the window, and opens on search without an event', async () => {
    const linked = setup({ event: '3', t0: '0', t1: '50' })
    await land(3)
    expect(linked.focused).toEqual([])
    const searched = setup({ q: 'conv' })
    expect(searched.sel.tab.value).toBe('search')
    expect(asked['timeline/event']!.params()).toBeNull()
  })

  it('writes a click on the track to the URL and a click on nothing clears it', () => {
    const { sel, writes } = setup()
    expect(sel.panelOpen.value).toBe(false)
    sel.select({ index: 5, track: 1, depth: 0, start_ns: 500, dur_ns: 5, name: 'e5' })
    expect(sel.panelOpen.value).toBe(true)
    expect(sel.eventIndex.value).toBe(5)
    sel.closePanel()
    expect(sel.panelOpen.value).toBe(false)
    expect(sel.eventIndex.value).toBeNull()
    expect(writes).toEqual([{ event: '5' }, { event: undefined }])
  })

  it('picks from a list: selects by index and moves the view at once', () => {
    const { sel, writes, focused } = setup()
    const hit = detailsOf(4).event
    sel.pick(hit)
    sel.pick(hit)
    expect(sel.eventIndex.value).toBe(4)
    expect(writes).toEqual([{ event: '4' }])
    expect(focused.map((e) => e.index)).toEqual([4, 4])
  })

  it('follows a link to another event, and forgets the event for another trace', async () => {
    const { sel, focused } = setup()
    sel.openEvent(6, false)
    expect(sel.tab.value).toBe('details')
    await land(6)
    expect(focused.map((e) => e.index)).toEqual([6])
    sel.forget()
    expect(sel.selection.value).toBeNull()
    expect(sel.eventIndex.value).toBeNull()
  })

  it('searches for the trimmed text and clears the search', () => {
    const { sel, writes } = setup()
    sel.searchText.value = '  relu '
    sel.submitSearch()
    expect(sel.query.value).toBe('relu')
    expect(sel.tab.value).toBe('search')
    sel.clearSearch()
    expect(sel.query.value).toBe('')
    expect(writes).toEqual([{ q: 'relu' }, { q: undefined }])
  })

  it('follows a link to a range without an event: the previous selection is dropped', async () => {
    const { sel, writes } = setup({ event: '4' })
    await land(4)
    expect(sel.selection.value?.index).toBe(4)
    sel.openEvent(null, true)
    expect(sel.selection.value).toBeNull()
    expect(sel.eventIndex.value).toBeNull()
    expect(sel.panelOpen.value).toBe(false)
    expect(writes).toEqual([]) // the URL already says so
  })

  it('follows a link that searches, and one without a search drops it', () => {
    const { sel, writes } = setup()
    sel.followSearch('DataLoader')
    expect([sel.query.value, sel.searchText.value, sel.tab.value, sel.panelOpen.value])
      .toEqual(['DataLoader', 'DataLoader', 'search', true])
    expect(asked['timeline/search']!.params()).toEqual({ q: 'DataLoader', limit: 100 })
    sel.followSearch('')
    expect([sel.query.value, sel.panelOpen.value]).toEqual(['', false])
    expect(writes).toEqual([])
  })
})
