/** The Element Plus components used across pages, registered once (tree-shaken build). */
import type { App } from 'vue'
import {
  ElAlert, ElButton, ElCard, ElCol, ElCollapse, ElCollapseItem, ElConfigProvider, ElDescriptions,
  ElDescriptionsItem, ElDivider, ElDrawer, ElEmpty, ElInput, ElInputNumber, ElLink, ElLoading, ElMenu,
  ElMenuItem, ElOption, ElPagination, ElProgress, ElRadio, ElRadioButton, ElRadioGroup, ElResult, ElRow, ElScrollbar,
  ElSelect, ElSlider, ElStatistic, ElSwitch, ElTabPane, ElTable, ElTableColumn, ElTabs, ElTag,
  ElTooltip,
} from 'element-plus'
import 'element-plus/dist/index.css'
// Element Plus's own dark values, active under html.dark (theme.ts)
import 'element-plus/theme-chalk/dark/css-vars.css'

const components = [
  ElAlert, ElButton, ElCard, ElCol, ElCollapse, ElCollapseItem, ElConfigProvider, ElDescriptions,
  ElDescriptionsItem, ElDivider, ElDrawer, ElEmpty, ElInput, ElInputNumber, ElLink, ElMenu, ElMenuItem,
  ElOption, ElPagination, ElProgress, ElRadio, ElRadioButton, ElRadioGroup, ElResult, ElRow, ElScrollbar, ElSelect,
  ElSlider, ElStatistic, ElSwitch, ElTabPane, ElTable, ElTableColumn, ElTabs, ElTag, ElTooltip,
]

export function installElement(app: App): void {
  for (const c of components) app.use(c)
  app.use(ElLoading)
}
