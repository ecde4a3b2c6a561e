const en = {
  title: 'Timeline',
}

const zh: typeof en = {
  title: '时间线',
}

export const timeline = { en, zh }
