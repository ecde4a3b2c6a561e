/**
 * Where the track view's pictures come from: the whole-trace answer (the trace's span, its
 * tracks, and the picture behind every view, pinned in the cache) and, in the background,
 * the answer for the current view's window (see fetcher.ts for when it is asked). Plain
 * state outside Vue, like the rest of the view's interaction state; the view hears of
 * answers and failures through `hooks`.
 */
import { ApiError } from '@/api/client'
import { WindowFetcher } from './fetcher'
import { makeScene, type Scene } from './scene'
import type { WindowAnswer } from './types'
import type { Viewport } from './viewport'
import { WindowCache } from './windowCache'

/** The API's parameters of one window (no start/end: the whole trace). */
export interface WindowParams {
  start_ns?: number
  end_ns?: number
  width_px: number
}

export type WindowLoader = (params: WindowParams, signal: AbortSignal) => Promise<WindowAnswer>

export interface SourceHooks {
  /** An answer is in the cache (the view's window, or the whole trace): draw again. */
  landed: (scene: Scene) => void
  /** A window failed, or one succeeded again (null); the view is still drawn from cache. */
  windowError: (error: ApiError | null) => void
  busy: (busy: boolean) => void
}

export function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'client', String(err))
}

export class TrackSource {
  readonly cache = new WindowCache(8)
  private readonly fetcher: WindowFetcher<WindowAnswer>
  private baseController: AbortController | null = null

  constructor(private readonly load: WindowLoader, private readonly hooks: SourceHooks) {
    this.fetcher = new WindowFetcher<WindowAnswer>(
      (req, signal) => load({ start_ns: req.t0, end_ns: req.t1, width_px: req.widthPx }, signal),
      {
        has: (key) => this.cache.get(key) !== null,
        answer: (_req, data) => {
          this.accept(data)
          hooks.windowError(null)
        },
        // An answer overtaken by a newer view: not drawn as current, but worth keeping.
        stale: (_req, data) => this.cache.put(makeScene(data)),
        error: (_req, err) => hooks.windowError(toApiError(err)),
        busy: (busy) => hooks.busy(busy),
      },
    )
  }

  /** Ask for the window of `view` at `widthPx` (`now`: without the debounce). */
  request(view: Viewport, widthPx: number, now = false): void {
    this.fetcher.request(view, widthPx, now)
  }

  /**
   * The whole-trace answer at `widthPx`, pinned in the cache; null when cancelled or
   * overtaken by a newer call. A failure rejects with an ApiError.
   */
  async loadBase(widthPx: number): Promise<WindowAnswer | null> {
    this.baseController?.abort()
    const mine = new AbortController()
    this.baseController = mine
    try {
      const data = await this.load({ width_px: widthPx }, mine.signal)
      if (this.baseController !== mine) return null
      this.accept(data, true)
      return data
    } catch (err) {
      if (this.baseController !== mine || (err as Error)?.name === 'AbortError') return null
      throw toApiError(err)
    }
  }

  /** Stop everything in flight (the view is going away). */
  cancel(): void {
    this.fetcher.cancel()
    this.baseController?.abort()
    this.baseController = null
  }

  private accept(data: WindowAnswer, asBase = false): void {
    const scene = makeScene(data)
    this.cache.put(scene, asBase)
    this.hooks.landed(scene)
  }
}
