const en = {
  title: 'Modules',
  hint: "Time of each nn.Module's forward calls, nested as the model is: self is the module's own time, without its submodules.",
  col: {
    name: 'Module',
    occurrences: 'Occurrences',
    host: 'Host time',
    device: 'Device time',
    self: 'Self',
    total: 'Total',
  },
  occurrencesHint: 'How many times the module ran in the profiled steps.',
  search: 'Search by module name',
  expandAll: 'Expand all',
  collapseAll: 'Collapse all',
  count: '{n} modules',
  chart: 'Top {n} modules by {metric}',
  empty: {
    none: 'This input has no module hierarchy (PyTorch records it when profiling with with_stack=True).',
    search: 'No module matches "{search}".',
  },
}

const zh: typeof en = {
  title: '模块',
  hint: '每个 nn.Module 前向调用的时间，按模型的嵌套结构显示：自身时间不含其子模块。',
  col: {
    name: '模块',
    occurrences: '出现次数',
    host: '主机时间',
    device: '设备时间',
    self: '自身',
    total: '总计',
  },
  occurrencesHint: '该模块在采集的迭代中运行的次数。',
  search: '按模块名称搜索',
  expandAll: '全部展开',
  collapseAll: '全部折叠',
  count: '{n} 个模块',
  chart: '{metric}最多的 {n} 个模块',
  empty: {
    none: '此输入没有模块层级（PyTorch 需在采集时设置 with_stack=True 才会记录）。',
    search: '没有名称包含“{search}”的模块。',
  },
}

export const modules = { en, zh }
