const en = {
  title: 'Memory',
}

const zh: typeof en = {
  title: '内存',
}

export const memory = { en, zh }
