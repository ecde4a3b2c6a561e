const en = {
  title: 'Diff',
}

const zh: typeof en = {
  title: '对比',
}

export const diff = { en, zh }
