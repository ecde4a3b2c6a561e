/**
 * The stages that follow a run's overview (the server's `server/stages.py`): the advice,
 * then the timeline index. The input is `ready` once its overview is; until a stage is
 * built its route answers 409 `not_ready` naming it (`ApiError.stage`), and a failed stage
 * answers 422 with the reason while the overview stays usable.
 */
import type { RunInput } from '@/api/types'
import { t, type MessageKey } from '@/i18n'

export type StageName = 'advice' | 'timeline'
export const STAGES: readonly StageName[] = ['advice', 'timeline']

const PREPARING: Record<StageName, MessageKey> = {
  advice: 'common.stage.preparing.advice',
  timeline: 'common.stage.preparing.timeline',
}
const FAILED: Record<StageName, MessageKey> = {
  advice: 'common.stage.failed.advice',
  timeline: 'common.stage.failed.timeline',
}
const NAMES: Record<StageName, MessageKey> = {
  advice: 'common.stage.names.advice',
  timeline: 'common.stage.names.timeline',
}

/** A stage the UI knows by name, or null (an unknown one reads as the plain not-ready). */
export function asStage(name: string | undefined | null): StageName | null {
  return (STAGES as readonly string[]).includes(name ?? '') ? (name as StageName) : null
}

/** "Preparing advice…" / "Building the timeline index…". */
export function preparingText(stage: StageName): string {
  return t(PREPARING[stage])
}

/** The title over a failed stage's reason. */
export function stageFailedTitle(stage: StageName): string {
  return t(FAILED[stage])
}

/** "advice, timeline" in the current language. */
export function stageNames(stages: readonly StageName[]): string {
  return stages.map((s) => t(NAMES[s])).join(t('common.stage.join'))
}

/** The stages of an input still queued or being built (none before its overview is ready). */
export function pendingOf(input: Pick<RunInput, 'state' | 'stages'> | undefined): StageName[] {
  if (input?.state !== 'ready' || !input.stages) return []
  const stages = input.stages
  return STAGES.filter((s) => stages[s].state === 'queued' || stages[s].state === 'analysing')
}
