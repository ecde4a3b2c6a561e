/**
 * Shapes of the API answers the shell uses; each page types its own section.
 *
 * Every shape here is generated from the server's declarations
 * (`mindinsight_profiler/server/answers/`, via docs/schema/api.schema.json and
 * `npm run gen:types`): this module only re-exports them under the names the UI uses, and
 * keeps the generic `Section<T>`/`Page<Row>` helpers (a JSON Schema has no generics).
 */
import type {
  Checked,
  NotEvaluated,
  PageFields,
  ServedAdvice,
  ServedEvidence,
  ServedFinding,
  Suppressed,
  Where,
} from './generated/api'

export type { Run, RunDetail, RunInput, RunSummary, Where } from './generated/api'
import type { Run } from './generated/api'

export type RunState = Run['state']

/** One report section with its envelope (`data` null when the input has none). */
export type Section<T> = Where & { data: T | null }

/** A page of a server-paged table; the row type is the caller's (see `TablePage`). */
export type Page<Row> = PageFields & { group_by?: string; rows: Row[] }

export type Evidence = ServedEvidence
export type Finding = ServedFinding
export type Severity = Finding['severity']
/**
 * The served advice. `suppressed` rules carry no title (the server sends `id` and `by`);
 * AdvisorSidebar.vue still asks for one, so it is typed as never present rather than absent.
 */
export type Advice = Omit<ServedAdvice, 'suppressed'> & { suppressed: (Suppressed & { title?: undefined })[] }

/** A rule listed as checked, not evaluated or suppressed (only the first two have a title). */
export type RuleRef = Checked | NotEvaluated | (Suppressed & { title?: undefined })
