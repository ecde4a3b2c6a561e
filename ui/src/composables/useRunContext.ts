/**
 * The run a page shows: its id (path), worker and span (query), and the run's detail.
 * Provided once by the run layout, injected by every page and by the advisor sidebar,
 * so the run is fetched once and every request names the same input.
 */
import { computed, inject, provide, type ComputedRef, type InjectionKey } from 'vue'
import { useRoute } from 'vue-router'
import type { RunDetail } from '@/api/types'
import { useResource, type Resource } from '@/composables/useResource'

export interface RunContext {
  runId: ComputedRef<string>
  worker: ComputedRef<string | undefined>
  span: ComputedRef<string | undefined>
  /** `{worker, span}` for API requests (undefined values are left out). */
  where: ComputedRef<{ worker?: string; span?: string }>
  /** The query to keep when moving to another page of the same run. */
  carry: ComputedRef<Record<string, string>>
  run: Resource<RunDetail>
}

const KEY: InjectionKey<RunContext> = Symbol('run-context')

function first(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value
  return typeof v === 'string' && v !== '' ? v : undefined
}

export function provideRunContext(): RunContext {
  const route = useRoute()
  const runId = computed(() => String(route.params.run ?? ''))
  const worker = computed(() => first(route.query.worker))
  const span = computed(() => first(route.query.span))
  const where = computed(() => ({ worker: worker.value, span: span.value }))
  const carry = computed(() => {
    const out: Record<string, string> = {}
    if (worker.value) out.worker = worker.value
    if (span.value) out.span = span.value
    return out
  })
  const run = useResource<RunDetail>(() => (runId.value ? { path: `runs/${runId.value}` } : null))
  const ctx = { runId, worker, span, where, carry, run }
  provide(KEY, ctx)
  return ctx
}

export function useRunContext(): RunContext {
  const ctx = inject(KEY)
  if (!ctx) throw new Error('useRunContext() outside a run page')
  return ctx
}

/** A resource of one worker's view, e.g. `useRunResource('overview')`. */
export function useRunResource<T>(
  view: string,
  params?: () => Record<string, string | number | boolean | undefined> | null,
): Resource<T> {
  const ctx = useRunContext()
  return useResource<T>(() => {
    const extra = params ? params() : {}
    if (extra === null || !ctx.runId.value) return null
    return { path: `runs/${ctx.runId.value}/${view}`, params: { ...ctx.where.value, ...extra } }
  })
}

/** The run context where there is one (components used both inside and outside a run). */
export function useOptionalRunContext(): RunContext | null {
  return inject(KEY, null)
}
