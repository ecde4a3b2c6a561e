/** What a run is, for badges: framework and device, as the analysis recorded them. */
import type { Run } from '@/api/types'

const FRAMEWORK_LABELS: Record<string, string> = { pytorch: 'PyTorch', mindspore: 'MindSpore' }
const FORMAT_FRAMEWORKS: Record<string, string> = {
  kineto: 'pytorch',
  ascend_pt: 'pytorch',
  mindspore_legacy: 'mindspore',
  mindspore2: 'mindspore',
}

/** `PyTorch`, `MindSpore` (from the analysed summary, else from the input formats). */
export function frameworkOf(run: Pick<Run, 'formats' | 'summary'>): string {
  const names = run.summary?.framework
    ? [run.summary.framework]
    : [...new Set(run.formats.map((f) => FORMAT_FRAMEWORKS[f]).filter(Boolean))]
  return names.map((n) => FRAMEWORK_LABELS[n] ?? n).join(' + ')
}

/** `GPU`, `NPU`, `CPU`, or '' before the analysis says. */
export function deviceOf(run: Pick<Run, 'summary'>): string {
  return (run.summary?.device ?? '').toUpperCase()
}

/**
 * Whether a run has anything to open: a failed run with no analysed input (no summary) has
 * no page that could show more than the reason its row already gives.
 */
export function canOpen(run: Pick<Run, 'state' | 'summary'>): boolean {
  return run.state !== 'failed' || Boolean(run.summary)
}

/** One input of a run detail, as far as its state goes. */
export interface InputState {
  worker: string
  span: string
  state: string
  error?: string
  progress?: number
}

/** The input a page shows: the named worker/span, else the first worker's first span
 * (the run layout's choice when the URL names none). */
export function currentInput<T extends InputState>(
  inputs: readonly T[] | undefined,
  worker?: string,
  span?: string,
): T | undefined {
  const list = inputs ?? []
  const w = worker ?? list[0]?.worker
  const ofWorker = list.filter((i) => i.worker === w)
  return span === undefined ? ofWorker[0] : ofWorker.find((i) => i.span === span)
}

/**
 * Why the shown input has nothing to show, when its analysis failed: the input's own reason
 * (the run detail), or the server's `analysis_failed` answer. Null while it may yet be
 * analysed, so a failure is never presented as "still being analysed".
 */
export function failureOf(
  input: InputState | undefined,
  error: { code: string; message: string } | null,
): string | null {
  if (input?.state === 'failed') return input.error || 'analysis failed'
  if (error?.code === 'analysis_failed') return error.message
  return null
}
