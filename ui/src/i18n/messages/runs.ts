const en = {
  title: 'Runs',
  subtitle: 'Every run found under the summary base dir; new runs appear as they are written.',
  searchPlaceholder: 'Filter runs by name',
  name: 'Run',
  framework: 'Framework',
  device: 'Device',
  workers: 'Workers',
  formats: 'Input',
  state: 'State',
  steps: 'Steps',
  stepTime: 'Avg step',
  none: 'No runs found under the summary base dir yet.',
  noMatch: 'No run matches “{q}”.',
  open: 'Open',
}

const zh: typeof en = {
  title: '运行列表',
  subtitle: '汇总目录下找到的所有运行；新写入的运行会自动出现。',
  searchPlaceholder: '按名称筛选运行',
  name: '运行',
  framework: '框架',
  device: '设备',
  workers: '工作进程数',
  formats: '输入格式',
  state: '状态',
  steps: '迭代数',
  stepTime: '平均迭代时间',
  none: '汇总目录下还没有找到运行。',
  noMatch: '没有名称包含“{q}”的运行。',
  open: '打开',
}

export const runs = { en, zh }
