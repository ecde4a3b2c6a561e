/**
 * Which steps an average covers (`covered` in the API, `ui/src/covered.ts`): printed next to
 * every average a page shows, so two pages' figures can be told apart or matched.
 */
const en = {
  all: 'mean of all {n} steps',
  only: 'step {first} only',
  single: 'the one step',
  range: 'mean of {n} steps ({first}–{last})',
  leftOut: '{steps} left out: {reason}',
  step: 'step {list}',
  steps: 'steps {list}',
  excl: 'excl. {steps}',
  reason: {
    compile: 'graph compilation',
    no_data: 'not in this page’s files',
  },
}

const zh: typeof en = {
  all: '全部 {n} 个迭代的平均',
  only: '仅迭代 {first}',
  single: '仅一个迭代',
  range: '{n} 个迭代（{first}–{last}）的平均',
  leftOut: '不含{steps}：{reason}',
  step: '迭代 {list}',
  steps: '迭代 {list}',
  excl: '不含{steps}',
  reason: {
    compile: '图编译',
    no_data: '本页的数据文件中没有',
  },
}

export const averages = { en, zh }
