const en = {
  title: 'Data pipeline',
}

const zh: typeof en = {
  title: '数据处理',
}

export const dataPipeline = { en, zh }
