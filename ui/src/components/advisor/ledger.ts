/**
 * The average step's ledger and each finding's share of it, for the advisor's bar.
 *
 * The advisor's findings each claim parts of the step (`claims`: ledger parts, "step" for any
 * part). Measured one by one they overlap, so the bar draws them with the advisor's own rule
 * (`advisor/ledger.py`, `combined`): a finding spreads its saving over its parts in
 * proportion to their sizes, and a part gives at most its own time however many findings
 * claim it. Where the claims on a part exceed it, every claim on it is scaled down alike, so
 * the drawn claims fill the part at most and their total is the advisor's combined saving.
 */

/** The ledger's parts in the backend's priority order (`analysis/steps/ledger.py` PARTS). */
export const LEDGER_PARTS = [
  'device_compute', 'exposed_copies', 'exposed_communication', 'data_wait', 'sync_wait',
  'host_launch', 'host_compute', 'untracked',
] as const
export type LedgerPart = (typeof LEDGER_PARTS)[number]
/** A claim on the whole step (any part): rank-level findings. */
export const WHOLE_STEP = 'step'

/**
 * The colours of the overview's step-time breakdown for the parts that refine its categories
 * (kernel, memcpy, runtime, DataLoader, CPU exec, other), so the bar reads next to it.
 */
export const PART_COLORS: Record<LedgerPart, string> = {
  device_compute: '#4e79a7', exposed_copies: '#f28e2b', exposed_communication: '#ff9da7',
  data_wait: '#59a14f', sync_wait: '#e15759', host_launch: '#76b7b2', host_compute: '#edc948',
  untracked: '#b07aa1',
}
const OTHER_COLOR = '#9c755f'

export function partColor(part: string): string {
  return (PART_COLORS as Record<string, string>)[part] ?? OTHER_COLOR
}

/** What the bar needs of a finding (a served `Finding` fits). */
export interface SavingClaim {
  id: string
  estimated_saving_us?: number | null
  claims?: string[]
}

/** One finding's drawn share of one part. */
export interface PartClaim {
  finding: string
  /** what the finding alone takes from the part (its saving spread by size) */
  alone_us: number
  /** what the bar draws: `alone_us`, scaled down where the part's claims exceed it */
  us: number
  /** where the drawn claim starts inside the part */
  offset_us: number
}

export interface LedgerSegment {
  part: string
  us: number
  share: number // of the step
  start_us: number
  claims: PartClaim[]
  claimed_us: number // sum of the claims' alone_us (may exceed the part)
  counted_us: number // min(claimed_us, us): what the part gives to the combined saving
}

export interface LedgerView {
  step_us: number
  segments: LedgerSegment[]
  combined_us: number
}

/** The ledger's parts in priority order; a part the UI does not know yet goes last. */
export function orderedParts(ledger: Record<string, number>): string[] {
  const known = LEDGER_PARTS.filter((p) => p in ledger)
  const other = Object.keys(ledger).filter((p) => !(LEDGER_PARTS as readonly string[]).includes(p))
  return [...known, ...other]
}

/** A part's share of the step for the legend: whole percents, "<1 %" for a sliver (not "0 %"). */
export function legendShare(share: number): string {
  if (share > 0 && share < 0.005) return '<1 %'
  return `${Math.round(share * 100)} %`
}

/** The parts a finding's claims name ("step", or no claim: all of them). */
export function partsOf(claims: readonly string[] | undefined, parts: readonly string[]): string[] {
  const named = new Set(claims ?? [])
  return named.size === 0 || named.has(WHOLE_STEP) ? [...parts] : parts.filter((p) => named.has(p))
}

const size = (ledger: Record<string, number>, part: string) => Math.max(Number(ledger[part]) || 0, 0)

/** finding id -> part -> the time it alone takes from the part (savings spread by size). */
export function spread(findings: readonly SavingClaim[], ledger: Record<string, number>): Map<string, Map<string, number>> {
  const parts = orderedParts(ledger)
  const out = new Map<string, Map<string, number>>()
  for (const f of findings) {
    const saving = f.estimated_saving_us ?? 0
    if (!(saving > 0)) continue
    const mine = partsOf(f.claims, parts)
    const total = mine.reduce((s, p) => s + size(ledger, p), 0)
    if (total <= 0) continue
    const byPart = new Map<string, number>()
    for (const p of mine) if (size(ledger, p) > 0) byPart.set(p, (saving * size(ledger, p)) / total)
    out.set(f.id, byPart)
  }
  return out
}

/** The bar: the step's parts in order, each with the findings' drawn claims on it; null without a ledger. */
export function ledgerView(ledger: Record<string, number> | null | undefined,
  findings: readonly SavingClaim[]): LedgerView | null {
  if (!ledger) return null
  const parts = orderedParts(ledger)
  const step = parts.reduce((s, p) => s + size(ledger, p), 0)
  if (!(step > 0)) return null
  const spreads = spread(findings, ledger)
  let start = 0
  let combined = 0
  const segments = parts.map((part): LedgerSegment => {
    const us = size(ledger, part)
    const alone = [...spreads].map(([id, m]) => [id, m.get(part) ?? 0] as const).filter(([, v]) => v > 0)
    const claimed = alone.reduce((s, [, v]) => s + v, 0)
    const scale = claimed > us ? us / claimed : 1
    let offset = 0
    const claims = alone.map(([finding, v]) => {
      const c = { finding, alone_us: v, us: v * scale, offset_us: offset }
      offset += c.us
      return c
    })
    const seg = { part, us, share: us / step, start_us: start, claims, claimed_us: claimed, counted_us: Math.min(claimed, us) }
    start += us
    combined += seg.counted_us
    return seg
  })
  return { step_us: step, segments, combined_us: combined }
}

/** The advisor's `combined` (advisor/ledger.py): the findings' savings, each part taken once. */
export function combinedSaving(findings: readonly SavingClaim[], ledger: Record<string, number> | null | undefined,
  stepUs?: number | null): number {
  if (!ledger || Object.keys(ledger).length === 0) {
    const total = findings.reduce((s, f) => s + Math.max(f.estimated_saving_us ?? 0, 0), 0)
    return stepUs && stepUs > 0 ? Math.min(total, stepUs) : total
  }
  return ledgerView(ledger, findings)?.combined_us ?? 0
}

/** The findings that take time from `part` in the bar. */
export function findingsOn(view: LedgerView | null, part: string | null): Set<string> {
  const seg = view?.segments.find((s) => s.part === part)
  return new Set(seg?.claims.map((c) => c.finding) ?? [])
}

/** The parts a finding takes time from in the bar. */
export function partsOfFinding(view: LedgerView | null, finding: string | null): string[] {
  if (!view || !finding) return []
  return view.segments.filter((s) => s.claims.some((c) => c.finding === finding)).map((s) => s.part)
}
