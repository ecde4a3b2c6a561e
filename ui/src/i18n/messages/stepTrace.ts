const en = {
  title: 'Step trace',
}

const zh: typeof en = {
  title: '迭代轨迹',
}

export const stepTrace = { en, zh }
