import { describe, expect, it } from 'vitest'
import type { OverviewWindow } from '@/api/generated/api'
import { ONE_OFF_MIN_SHARE, oneOffParts, oneOffRoute, windowNotice } from '@/components/advisor/windowWork'

describe('the advice sidebar’s window notice', () => {
  // the advisor's text on hta/call_stack (advisor/engine.py _limit_text)
  const limit = {
    en: 'The profiled window cannot be judged in steady state: the 1 profiled step(s) hold only 6 events besides the step markers: a cut-out fixture or a capture that missed the work: steady-state rules are not evaluated; profile complete training steps.',
    zh: '无法按稳态评判该采集窗口：采集的迭代中只有少量事件，无法归因迭代时间；请采集完整的训练迭代（稳态规则未评估）。',
  }
  it('says why and what to do, in the language shown, without repeating the title', () => {
    const en = windowNotice(limit, 'en')!
    expect(en.startsWith('The 1 profiled step(s) hold only 6 events')).toBe(true)
    expect(en.endsWith('profile complete training steps.')).toBe(true)
    expect(windowNotice(limit, 'zh')).toBe('采集的迭代中只有少量事件，无法归因迭代时间；请采集完整的训练迭代（稳态规则未评估）。')
    expect(windowNotice({ en: limit.en, zh: '' }, 'zh')).toBe(en) // no Chinese: English
  })
  it('keeps a text that does not open with the title whole', () => {
    expect(windowNotice({ en: 'Profile a complete trace.', zh: '请采集完整的 trace。' }, 'zh')).toBe('请采集完整的 trace。')
    expect(windowNotice({ en: 'Profile a complete trace.', zh: '' }, 'en')).toBe('Profile a complete trace.')
  })
  it('is absent when the window can be judged', () => {
    expect(windowNotice(null, 'en')).toBeNull()
    expect(windowNotice(undefined, 'zh')).toBeNull()
  })
})

describe('the overview’s one-off marker', () => {
  // hta/critical_path/simple_add's window: 83 % initialisation, 14 % warm-up
  const simpleAdd: OverviewWindow = {
    total_us: { compile: 0, initialisation: 24587242, capture: 0, warmup: 4124500 },
    share: { compile: 0, initialisation: 0.8288, capture: 0.004, warmup: 0.139 },
    window_share: 0.9679,
    longest: {
      initialisation: { name: 'cudaDeviceGetStreamPriorityRange', start_ns: 2_000_000, end_ns: 24_589_242_000, us: 24587242 },
      warmup: { name: '[param|warmup|forward]', start_ns: 24_664_152_000, end_ns: 40_321_380_000, us: 15657228 },
    },
    limit: null,
  }
  it('lists the kinds over 1 % of the steps, largest first, with their longest event', () => {
    const parts = oneOffParts(simpleAdd)
    expect(parts.map((p) => p.kind)).toEqual(['initialisation', 'warmup']) // capture 0.4 %: not marked
    expect(parts[0]).toMatchObject({ share: 0.8288, us: 24587242, longest: { name: 'cudaDeviceGetStreamPriorityRange' } })
    expect(oneOffParts({ ...simpleAdd, share: { ...simpleAdd.share, capture: ONE_OFF_MIN_SHARE } }).map((p) => p.kind))
      .toEqual(['initialisation', 'warmup', 'capture'])
  })
  it('marks nothing on a steady window or without one', () => {
    const steady = { ...simpleAdd, share: { compile: 0, initialisation: 0, capture: 0, warmup: 0.005 }, longest: {} }
    expect(oneOffParts(steady)).toEqual([])
    expect(oneOffParts(null)).toEqual([])
  })
  it('opens the timeline on the longest event, marked, with a margin', () => {
    const [init] = oneOffParts(simpleAdd)
    const route = oneOffRoute(init, 'r1', { worker: 'w' }) as { name: string; query: Record<string, string> }
    expect(route.name).toBe('timeline')
    expect(route.query).toMatchObject({ worker: 'w', t0: '0', mark: '2000000-24589242000' })
    expect(Number(route.query.t1)).toBeGreaterThan(24_589_242_000)
    expect(oneOffRoute({ ...init, longest: null }, 'r1')).toBeNull()
  })
})
