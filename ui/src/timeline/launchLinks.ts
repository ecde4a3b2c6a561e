/**
 * The arrows of the selected event's launch chain, drawn over the tracks whatever the flows
 * switch says: from its launcher to it, and from it to what it launched, each only where the
 * two are on different tracks. Details that are not the selected event's (those of the
 * previous pick, while the new ones load) draw none.
 */
import type { Link } from './renderer'
import type { EventDetails, Selection } from './types'

export function launchLinks(d: EventDetails | null | undefined, selected: Selection | null): Link[] {
  if (!d || d.index !== selected?.index) return []
  const out: Link[] = []
  const caller = d.callers[0]
  if (caller && caller.track !== d.track) {
    out.push({ srcTrack: caller.track, srcNs: caller.start_ns, dstTrack: d.track, dstNs: d.start_ns, dstDepth: d.depth })
  }
  for (const e of d.launched) {
    if (e.track !== d.track) out.push({ srcTrack: d.track, srcNs: d.start_ns, srcDepth: d.depth, dstTrack: e.track, dstNs: e.start_ns })
  }
  return out
}
