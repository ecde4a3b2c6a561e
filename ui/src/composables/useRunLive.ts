/**
 * The run detail kept current while something of the run is still coming (an input being
 * analysed, or a stage after an overview: the advice, the timeline index). It is polled
 * into its own ref for the header (state, pending hint); the run context's detail is left
 * as it is, since every page's requests read it and replacing it would refetch them all
 * (each page polls its own 409 `not_ready` answers anyway).
 */
import { computed, onScopeDispose, shallowRef, watch, type ComputedRef } from 'vue'
import { getJson } from '@/api/client'
import type { RunDetail } from '@/api/types'
import type { RunContext } from '@/composables/useRunContext'

export const LIVE_POLL_MS = 2000

/** Whether the run may still change by itself (so it is worth asking again). */
export function stillComing(run: RunDetail | null | undefined): boolean {
  if (!run) return false
  return run.state === 'queued' || run.state === 'analysing' || (run.pending?.length ?? 0) > 0
}

export function useRunLive(ctx: RunContext): ComputedRef<RunDetail | null> {
  const live = shallowRef<RunDetail | null>(null)
  let timer: ReturnType<typeof setTimeout> | undefined
  let controller: AbortController | null = null

  function schedule(run: RunDetail | null): void {
    clearTimeout(timer)
    if (stillComing(run)) timer = setTimeout(poll, LIVE_POLL_MS)
  }

  async function poll(): Promise<void> {
    controller?.abort()
    const mine = new AbortController()
    controller = mine
    try {
      live.value = await getJson<RunDetail>(`runs/${ctx.runId.value}`, undefined, mine.signal)
    } catch {
      if (mine.signal.aborted) return
      // a failed poll keeps what was shown; the next one may answer
    }
    if (controller === mine) schedule(live.value ?? ctx.run.data.value)
  }

  watch(() => ctx.run.data.value, (run) => {
    controller?.abort()
    live.value = null
    schedule(run)
  }, { immediate: true })
  onScopeDispose(() => {
    clearTimeout(timer)
    controller?.abort()
  })
  return computed(() => live.value ?? ctx.run.data.value)
}
