import { describe, expect, it } from 'vitest'
import { canOpen, currentInput, failureOf } from '@/runInfo'

const inputs = [
  { worker: 'w0', span: '', state: 'ready' },
  { worker: 'w1', span: '', state: 'failed', error: 'w1.pt.trace.json: truncated JSON' },
  { worker: 'w2', span: 'a', state: 'analysing', progress: 40 },
  { worker: 'w2', span: 'b', state: 'failed' },
]

describe('a failed run', () => {
  it('opens only when one of its inputs was analysed', () => {
    expect(canOpen({ state: 'failed' })).toBe(false)
    expect(canOpen({ state: 'failed', summary: { steps: 3 } as never })).toBe(true)
    expect(canOpen({ state: 'ready' })).toBe(true)
    expect(canOpen({ state: 'analysing' })).toBe(true)
  })

  it('shows the input the URL names, else the first worker first span', () => {
    expect(currentInput(inputs)?.worker).toBe('w0')
    expect(currentInput(inputs, 'w2')?.span).toBe('a')
    expect(currentInput(inputs, 'w2', 'b')?.state).toBe('failed')
    expect(currentInput(inputs, 'nope')).toBeUndefined()
    expect(currentInput(undefined)).toBeUndefined()
  })

  it('says why a failed input has nothing, never that it is still being analysed', () => {
    const notReady = { code: 'not_ready', message: 'the report of run r worker w1 is not analysed yet' }
    // a 409 answer for an input the run detail knows failed: the failure, with its reason
    expect(failureOf(currentInput(inputs, 'w1'), notReady)).toBe('w1.pt.trace.json: truncated JSON')
    expect(failureOf(currentInput(inputs, 'w2', 'b'), null)).toBe('analysis failed')
    // the server's own answer for a failed input, before the run detail is known
    expect(failureOf(undefined, { code: 'analysis_failed', message: 'm' })).toBe('m')
    // still being analysed, or ready: no failure
    expect(failureOf(currentInput(inputs, 'w2'), notReady)).toBeNull()
    expect(failureOf(currentInput(inputs), null)).toBeNull()
  })
})
