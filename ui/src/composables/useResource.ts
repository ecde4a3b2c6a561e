/**
 * One API answer as reactive state: refetched when its request changes, previous request
 * aborted, and polled while the server answers 409 `not_ready` (the input is still being
 * analysed in the background), so a page fills itself in when the analysis finishes.
 */
import { onScopeDispose, ref, shallowRef, watch, type Ref, type ShallowRef } from 'vue'
import { ApiError, getJson, type Params } from '@/api/client'

export interface Request {
  path: string
  params?: Params
}

export interface Resource<T> {
  data: ShallowRef<T | null>
  error: ShallowRef<ApiError | null>
  loading: Ref<boolean>
  reload: () => void
}

export const NOT_READY_POLL_MS = 2000

export function useResource<T>(request: () => Request | null): Resource<T> {
  const data = shallowRef<T | null>(null)
  const error = shallowRef<ApiError | null>(null)
  const loading = ref(false)
  let controller: AbortController | null = null
  let timer: ReturnType<typeof setTimeout> | undefined

  async function load(req: Request | null, keepData = false): Promise<void> {
    controller?.abort()
    clearTimeout(timer)
    if (!req) {
      data.value = null
      error.value = null
      loading.value = false
      return
    }
    const mine = new AbortController()
    controller = mine
    loading.value = true
    if (!keepData) error.value = null
    try {
      const answer = await getJson<T>(req.path, req.params, mine.signal)
      if (controller !== mine) return
      data.value = answer
      error.value = null
    } catch (exc) {
      if (controller !== mine || (exc as Error).name === 'AbortError') return
      const err = exc instanceof ApiError ? exc : new ApiError(0, 'client', String(exc))
      error.value = err
      if (!keepData) data.value = null
      if (err.notReady) timer = setTimeout(() => load(request(), true), NOT_READY_POLL_MS)
    } finally {
      if (controller === mine) loading.value = false
    }
  }

  watch(request, (req) => load(req), { immediate: true, deep: true })
  onScopeDispose(() => {
    controller?.abort()
    clearTimeout(timer)
  })
  return { data, error, loading, reload: () => load(request()) }
}
