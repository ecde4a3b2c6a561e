/** The run header's Download menu (components/RunDownloads.vue). */
const en = {
  menu: 'Download',
  hint: 'Files to share: the report of this worker, in the language shown',
  html: 'Report (HTML)',
  xlsx: 'Workbook (Excel)',
  md: 'Summary (Markdown)',
  ranks: 'All ranks timeline (Perfetto)',
  ranksHint: 'Every rank of the run on one timeline, for ui.perfetto.dev',
}

const zh: typeof en = {
  menu: '下载',
  hint: '用于分享的文件：当前 worker 的报告，使用当前显示的语言',
  html: '报告（HTML）',
  xlsx: '工作簿（Excel）',
  md: '摘要（Markdown）',
  ranks: '全部 rank 时间线（Perfetto）',
  ranksHint: '本次运行的所有 rank 合在一条时间线中，可在 ui.perfetto.dev 打开',
}

export const downloads = { en, zh }
