const en = {
  title: 'Modules',
}

const zh: typeof en = {
  title: '模块',
}

export const modules = { en, zh }
