import { describe, expect, it } from 'vitest'
import { ApiError } from '@/api/client'
import { stillComing } from '@/composables/useRunLive'
import { setLocale } from '@/i18n'
import { asStage, pendingOf, preparingText, stageNames } from '@/stages'

const stages = (advice: string, timeline: string) =>
  ({ advice: { state: advice }, timeline: { state: timeline } }) as never

describe('the stages after the overview', () => {
  it('are pending while queued or being built, and only once the overview is ready', () => {
    expect(pendingOf({ state: 'ready', stages: stages('analysing', 'queued') })).toEqual(['advice', 'timeline'])
    expect(pendingOf({ state: 'ready', stages: stages('ready', 'analysing') })).toEqual(['timeline'])
    expect(pendingOf({ state: 'ready', stages: stages('failed', 'ready') })).toEqual([])
    expect(pendingOf({ state: 'analysing', stages: stages('queued', 'queued') })).toEqual([])
    expect(pendingOf({ state: 'ready' })).toEqual([]) // a state from before stages existed
    expect(pendingOf(undefined)).toEqual([])
  })

  it('are named by the 409 answer, and an unknown name is the plain not-ready', () => {
    const err = new ApiError(409, 'not_ready', 'the advice ... is being built', undefined, 'advice')
    expect(err.notReady).toBe(true)
    expect(asStage(err.stage)).toBe('advice')
    expect(asStage('cluster')).toBeNull()
    expect(asStage(undefined)).toBeNull()
  })

  it('say what is being prepared in both languages', () => {
    setLocale('en')
    expect(preparingText('advice')).toBe('Preparing advice…')
    expect(preparingText('timeline')).toBe('Building the timeline index…')
    expect(stageNames(['advice', 'timeline'])).toBe('advice, timeline')
    setLocale('zh')
    expect(preparingText('advice')).toBe('正在准备建议…')
    expect(stageNames(['advice', 'timeline'])).toBe('建议、时间线')
    setLocale('en')
  })

  it('keep the run header polling until nothing is coming', () => {
    const run = (state: string, pending?: string[]) => ({ state, pending }) as never
    expect(stillComing(run('analysing'))).toBe(true)
    expect(stillComing(run('ready', ['timeline']))).toBe(true)
    expect(stillComing(run('ready', []))).toBe(false)
    expect(stillComing(run('ready'))).toBe(false)
    expect(stillComing(run('failed'))).toBe(false)
    expect(stillComing(null)).toBe(false)
  })
})
