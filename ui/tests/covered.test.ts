import { afterEach, describe, expect, it } from 'vitest'
import { coveredShort, coveredText, stepRuns, type StepsCovered } from '@/covered'
import { locale } from '@/i18n'

const cov = (c: Partial<StepsCovered>): StepsCovered => ({
  count: 0, first: null, last: null, left_out: [], compile: [], ...c,
})

describe('which steps an average covers', () => {
  afterEach(() => { locale.value = 'en' })

  it('lists steps as runs', () => {
    expect(stepRuns(['2', '3', '4', '7', '9', '10'])).toBe('2–4, 7, 9–10')
    expect(stepRuns(['a', '1', '2'])).toBe('a, 1–2')
  })

  it('says all steps, or the one step, when none is left out', () => {
    locale.value = 'en'
    expect(coveredText(cov({ count: 6, first: '1', last: '6' }))).toBe('mean of all 6 steps')
    expect(coveredText(cov({ count: 1, first: '0', last: '0' }))).toBe('the one step')
    expect(coveredShort(cov({ count: 6, first: '1', last: '6' }))).toBe('')
    expect(coveredText(null)).toBe('')
  })

  it('names the steps left out and why (MindSpore: step 1 compiles)', () => {
    locale.value = 'en'
    const ms = cov({ count: 9, first: '2', last: '10', left_out: ['1'], compile: ['1'] })
    expect(coveredText(ms)).toBe('mean of 9 steps (2–10); step 1 left out: graph compilation')
    expect(coveredShort(ms)).toBe('excl. step 1')
    // a communication file timing only step 2 of 2-5, step 1 compiling
    const comm = cov({ count: 1, first: '2', last: '2', left_out: ['1', '3', '4', '5'], compile: ['1'] })
    expect(coveredText(comm)).toBe(
      'step 2 only; step 1 left out: graph compilation; steps 3–5 left out: not in this page’s files')
    expect(coveredShort(comm)).toBe('excl. steps 1, 3–5')
  })

  it('says it in Chinese', () => {
    locale.value = 'zh'
    const ms = cov({ count: 9, first: '2', last: '10', left_out: ['1'], compile: ['1'] })
    expect(coveredText(ms)).toBe('9 个迭代（2–10）的平均; 不含迭代 1：图编译')
    expect(coveredShort(ms)).toBe('不含迭代 1')
  })
})
