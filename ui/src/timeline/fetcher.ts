/**
 * Asks for the window of the current view: at once when the fetcher was idle (a single
 * key press or click must not wait), else debounced (a held key or a wheel flick is a few
 * requests, not thirty), abortable (a new request aborts the one in flight), and only the
 * latest request's answer is reported as current. Answers already cached are not asked
 * again. The transport is injected, so the timing rules are unit-tested with fake timers.
 */
import { sceneKey } from './scene'
import { wholeNs, type Viewport } from './viewport'

export interface WindowRequest {
  t0: number
  t1: number
  widthPx: number
  key: string
  /** Increasing per request: the latest wins. */
  seq: number
}

export type Transport<T> = (req: WindowRequest, signal: AbortSignal) => Promise<T>

export interface FetcherHooks<T> {
  /** Whether an answer for `key` is already at hand (then nothing is asked). */
  has: (key: string) => boolean
  /** The answer to the latest request. */
  answer: (req: WindowRequest, data: T) => void
  /** An answer that arrived after a newer request was made: worth caching, not current. */
  stale?: (req: WindowRequest, data: T) => void
  error: (req: WindowRequest, err: unknown) => void
  /** Called when a request starts or settles (for a loading indicator). */
  busy?: (busy: boolean) => void
}

export const DEBOUNCE_MS = 24

export class WindowFetcher<T> {
  private timer: ReturnType<typeof setTimeout> | undefined
  private controller: AbortController | null = null
  private seq = 0
  private pending: WindowRequest | null = null
  private lastChange = Number.NEGATIVE_INFINITY

  constructor(private transport: Transport<T>, private hooks: FetcherHooks<T>,
    private delayMs = DEBOUNCE_MS) {}

  /** The request for `view` at `widthPx` (whole ns, never before 0). */
  static requestFor(view: Viewport, widthPx: number, seq = 0): WindowRequest {
    const w = wholeNs(view)
    const width = Math.max(1, Math.round(widthPx))
    return { t0: w.t0, t1: w.t1, widthPx: width, key: sceneKey(w.t0, w.t1, width), seq }
  }

  /** Ask for `view` after the debounce (`now`: at once, e.g. the first window). */
  request(view: Viewport, widthPx: number, now = false): WindowRequest {
    const req = WindowFetcher.requestFor(view, widthPx, ++this.seq)
    this.pending = req
    clearTimeout(this.timer)
    if (this.hooks.has(req.key)) {
      // Cached: nothing to ask, and any request in flight is now stale.
      this.abort()
      this.pending = null
      return req
    }
    const at = Date.now()
    const idle = !this.controller && at - this.lastChange >= this.delayMs
    this.lastChange = at
    if (now || idle || this.delayMs <= 0) void this.send(req)
    else this.timer = setTimeout(() => void this.send(req), this.delayMs)
    return req
  }

  private abort(): void {
    if (this.controller) {
      this.controller.abort()
      this.controller = null
      this.hooks.busy?.(false)
    }
  }

  private async send(req: WindowRequest): Promise<void> {
    if (this.pending !== req) return
    this.abort()
    const mine = new AbortController()
    this.controller = mine
    this.hooks.busy?.(true)
    try {
      const data = await this.transport(req, mine.signal)
      if (this.controller !== mine) return
      if (req.seq === this.seq) this.hooks.answer(req, data)
      else this.hooks.stale?.(req, data)
    } catch (err) {
      if (this.controller !== mine || (err as Error)?.name === 'AbortError') return
      this.hooks.error(req, err)
    } finally {
      if (this.controller === mine) {
        this.controller = null
        this.hooks.busy?.(false)
      }
      if (this.pending === req) this.pending = null
    }
  }

  /** Whether a request is waiting or in flight. */
  get inFlight(): boolean {
    return this.pending !== null
  }

  cancel(): void {
    clearTimeout(this.timer)
    this.pending = null
    this.abort()
  }
}
