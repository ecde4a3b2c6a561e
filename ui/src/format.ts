/** Number formatting shared by every page: durations, bytes, shares and counts. */

const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

/** A duration given in microseconds, in the unit that keeps 3-4 significant digits. */
export function formatUs(us: number | null | undefined, digits = 2): string {
  if (us === null || us === undefined || !Number.isFinite(us)) return '–'
  const a = Math.abs(us)
  if (a >= 1e6) return `${(us / 1e6).toFixed(digits)} s`
  if (a >= 1e3) return `${(us / 1e3).toFixed(digits)} ms`
  if (a >= 1 || a === 0) return `${us.toFixed(a === 0 ? 0 : Math.min(digits, 1))} µs`
  return `${(us * 1e3).toFixed(0)} ns`
}

/** A duration given in nanoseconds. */
export function formatNs(ns: number | null | undefined, digits = 2): string {
  if (ns === null || ns === undefined || !Number.isFinite(ns)) return '–'
  return formatUs(ns / 1e3, digits)
}

export function formatBytes(bytes: number | null | undefined, digits = 1): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '–'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = Math.abs(bytes)
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i += 1
  }
  return `${bytes < 0 ? '-' : ''}${i === 0 ? v.toFixed(0) : v.toFixed(digits)} ${units[i]}`
}

/** A share in [0, 1] as a percentage. */
export function formatShare(share: number | null | undefined, digits = 1): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '–'
  return `${(share * 100).toFixed(digits)} %`
}

/** A value that is already a percentage (0-100). */
export function formatPct(pct: number | null | undefined, digits = 1): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '–'
  return `${pct.toFixed(digits)} %`
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–'
  return GROUPED.format(n)
}

/** Fixed-point with `digits` decimals, '–' for missing values. */
export function formatNumber(n: number | null | undefined, digits = 2): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–'
  return n.toFixed(digits)
}

/**
 * `digits` significant digits, for figures spanning decades (GFLOPs per call from 1e-5 to
 * 1e3): 6.58, 0.00367, 4,715 (large values grouped, never in exponent form).
 */
export function formatSig(n: number | null | undefined, digits = 3): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–'
  if (n === 0) return '0'
  if (Math.abs(n) >= 10 ** digits) return GROUPED.format(n)
  return String(Number(n.toPrecision(digits)))
}
