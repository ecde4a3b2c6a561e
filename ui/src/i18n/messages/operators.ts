const en = {
  title: 'Operators',
}

const zh: typeof en = {
  title: '算子',
}

export const operators = { en, zh }
