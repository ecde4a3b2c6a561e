/** Small chart helpers shared by the stage pages. */
import { formatUs } from '@/format'

/** Axis labels of a duration axis: as few decimals as the tick needs (1.5 s, 2 s, 250 ms). */
export function axisUs(us: number): string {
  const a = Math.abs(us)
  const scaled = a >= 1e6 ? a / 1e6 : a >= 1e3 ? a / 1e3 : a
  const round = (d: number) => Math.abs(Math.round(scaled * 10 ** d) - scaled * 10 ** d) < 1e-6
  return formatUs(us, round(0) ? 0 : round(1) ? 1 : 2)
}
