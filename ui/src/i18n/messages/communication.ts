const en = {
  title: 'Communication',
}

const zh: typeof en = {
  title: '通信',
}

export const communication = { en, zh }
