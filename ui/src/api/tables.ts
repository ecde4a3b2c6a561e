/**
 * Answers of the table views (`operators`, `kernels`, `modules`, `diff`, and the operators
 * page's `dynamic-shape` card; docs/service.md). Times are microseconds (`*_us`), as in the
 * report. Generated from the server's declarations (`mindinsight_profiler/server/answers/`):
 * re-exports only.
 */
import type { OperatorTypePage, TablePageFields } from './generated/api'

export type {
  Change,
  DiffAnswer,
  DynamicShape,
  DynamicShapeAnswer,
  DynamicShapeOp,
  DynamicShapeType,
  InstanceRow,
  KernelRow,
  ModuleRow,
  ModulesAnswer,
  OperatorRow,
  OpTypeRow as OperatorTypeRow,
} from './generated/api'

/**
 * A page of a table view: the rows, and sums of the additive columns over all matches.
 * The server declares one page per grouping (`OperatorPage`, `OperatorTypePage`,
 * `InstancePage`, `KernelPage`); pages that switch grouping use this generic form.
 */
export type TablePage<Row> = TablePageFields & {
  rows: Row[]
  /** Operator types only: the time they are ranked by. */
  by?: OperatorTypePage['by']
}
