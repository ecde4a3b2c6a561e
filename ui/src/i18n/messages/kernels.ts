const en = {
  title: 'Kernels',
}

const zh: typeof en = {
  title: '内核',
}

export const kernels = { en, zh }
