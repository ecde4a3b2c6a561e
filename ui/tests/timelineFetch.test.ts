import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { WindowFetcher, type WindowRequest } from '@/timeline/fetcher'
import { formatCollapsed, parseCollapsed, parseNs, parseTimelineQuery, parseWindow, windowQuery } from '@/timeline/urlState'

interface Call {
  req: WindowRequest
  signal: AbortSignal
  resolve: (v: string) => void
  reject: (e: unknown) => void
}

function setup(cached: string[] = []) {
  const calls: Call[] = []
  const answers: [WindowRequest, string][] = []
  const stale: WindowRequest[] = []
  const errors: unknown[] = []
  const busy: boolean[] = []
  const fetcher = new WindowFetcher<string>(
    (req, signal) => new Promise((resolve, reject) => {
      calls.push({ req, signal, resolve, reject })
      signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })))
    }),
    {
      has: (key) => cached.includes(key),
      answer: (req, data) => answers.push([req, data]),
      stale: (req) => stale.push(req),
      error: (_req, err) => errors.push(err),
      busy: (b) => busy.push(b),
    },
    20,
  )
  return { fetcher, calls, answers, stale, errors, busy }
}

describe('window fetcher', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('asks for whole ns at the canvas width', () => {
    expect(WindowFetcher.requestFor({ t0: 10.6, t1: 99.2 }, 771.6)).toMatchObject({ t0: 10, t1: 100, widthPx: 772, key: '10:100:772' })
  })

  it('asks at once when idle, then debounces a burst into one request for the last view', async () => {
    const { fetcher, calls, answers } = setup()
    for (let k = 0; k < 10; k++) {
      fetcher.request({ t0: k * 100, t1: k * 100 + 1000 }, 800)
      await vi.advanceTimersByTimeAsync(5)
    }
    expect(calls).toHaveLength(1)
    expect(calls[0].req).toMatchObject({ t0: 0, t1: 1000, widthPx: 800 })
    await vi.advanceTimersByTimeAsync(20)
    expect(calls).toHaveLength(2)
    expect(calls[0].signal.aborted).toBe(true)
    expect(calls[1].req).toMatchObject({ t0: 900, t1: 1900, widthPx: 800 })
    calls[1].resolve('A')
    await vi.runAllTimersAsync()
    expect(answers.map(([r, d]) => [r.t0, d])).toEqual([[900, 'A']])
    expect(fetcher.inFlight).toBe(false)
    // a later single step, after a pause, is asked for at once again
    await vi.advanceTimersByTimeAsync(100)
    fetcher.request({ t0: 5000, t1: 6000 }, 800)
    expect(calls).toHaveLength(3)
  })

  it('aborts the request in flight when a newer one is sent: the latest wins', async () => {
    const { fetcher, calls, answers, errors } = setup()
    fetcher.request({ t0: 0, t1: 1000 }, 800, true)
    fetcher.request({ t0: 500, t1: 1500 }, 800)
    await vi.advanceTimersByTimeAsync(25)
    expect(calls).toHaveLength(2)
    expect(calls[0].signal.aborted).toBe(true)
    calls[1].resolve('B')
    await vi.runAllTimersAsync()
    expect(answers.map(([r, d]) => [r.t0, d])).toEqual([[500, 'B']])
    expect(errors).toEqual([])
  })

  it('keeps an older answer that lands during the debounce as stale, not current', async () => {
    const { fetcher, calls, answers, stale } = setup()
    fetcher.request({ t0: 0, t1: 1000 }, 800, true)
    fetcher.request({ t0: 100, t1: 1100 }, 800)
    calls[0].resolve('old')
    await vi.advanceTimersByTimeAsync(1)
    expect(answers).toEqual([])
    expect(stale.map((r) => r.t0)).toEqual([0])
    await vi.advanceTimersByTimeAsync(25)
    calls[1].resolve('new')
    await vi.runAllTimersAsync()
    expect(answers.map(([, d]) => d)).toEqual(['new'])
  })

  it('asks nothing for a cached window and reports errors of the latest request', async () => {
    const { fetcher, calls, errors, busy } = setup(['0:1000:800'])
    fetcher.request({ t0: 0, t1: 1000 }, 800, true)
    await vi.runAllTimersAsync()
    expect(calls).toHaveLength(0)
    fetcher.request({ t0: 0, t1: 2000 }, 800, true)
    calls[0].reject(new Error('HTTP 500'))
    await vi.runAllTimersAsync()
    expect(errors).toHaveLength(1)
    expect(busy).toEqual([true, false])
    fetcher.request({ t0: 0, t1: 3000 }, 800, true)
    fetcher.cancel()
    await vi.runAllTimersAsync()
    expect(calls[1].signal.aborted).toBe(true)
    expect(errors).toHaveLength(1)
  })
})

describe('timeline URL state', () => {
  it('reads a window of whole ns, ignoring anything else', () => {
    expect(parseWindow({ t0: '1950000', t1: '3050000' })).toEqual({ t0: 1_950_000, t1: 3_050_000 })
    expect(parseWindow({ t0: ['5', '9'], t1: '10' })).toEqual({ t0: 5, t1: 10 })
    for (const bad of [{ t0: '10', t1: '10' }, { t0: '-1', t1: '10' }, { t0: '1.5', t1: '10' }, { t0: '1e3', t1: '1e4' },
      { t0: '0' }, { t0: '0', t1: '99999999999999999' }, { t0: 'abc', t1: '10' }]) {
      expect(parseWindow(bad)).toBeNull()
    }
    expect(parseNs('0')).toBe(0)
    expect(parseNs(undefined)).toBeNull()
  })

  it('reads the whole state and survives junk', () => {
    expect(parseTimelineQuery({ t0: '1', t1: '2', event: '42', q: 'conv', fold: '0,2', worker: 'w' })).toEqual({
      window: { t0: 1, t1: 2 }, event: 42, q: 'conv', collapsed: new Set([0, 2]), mark: null, tracks: [],
      allFlows: false,
    })
    expect(parseTimelineQuery({ event: '-3', q: ['x'.repeat(500)], fold: 'a,,3,-1', flows: 'all' })).toEqual({
      window: null, event: null, q: 'x'.repeat(200), collapsed: new Set([3]), mark: null, tracks: [],
      allFlows: true,
    })
  })

  it('writes the window (left out when it is the whole trace) and collapsed groups', () => {
    expect(windowQuery({ t0: 1.7, t1: 99.2 }, { t0: 0, t1: 1000 })).toEqual({ t0: '1', t1: '100' })
    expect(windowQuery({ t0: 0, t1: 1000 }, { t0: 0, t1: 1000 })).toEqual({ t0: undefined, t1: undefined })
    expect(windowQuery({ t0: 0, t1: 1000 }, null)).toEqual({ t0: '0', t1: '1000' })
    expect(formatCollapsed(new Set([3, 0]))).toBe('0,3')
    expect(formatCollapsed(new Set())).toBeUndefined()
    expect(parseCollapsed(formatCollapsed(new Set([1, 4])))).toEqual(new Set([1, 4]))
  })

  it('opens the windows of the advisor evidence links exactly', async () => {
    const { evidenceRoute } = await import('@/evidence')
    const route = evidenceRoute({ kind: 'time_range', label: 'gap', page: '', window_ns: [70_000_000, 139_000_000] }, 'r')
    const query = (route as { query: Record<string, string> }).query
    const w = parseWindow(query)!
    expect(w.t0).toBeLessThan(70_000_000)
    expect(w.t1).toBeGreaterThan(139_000_000)
    expect(windowQuery(w, { t0: 0, t1: 1e9 })).toEqual({ t0: query.t0, t1: query.t1 })
  })
})
