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
