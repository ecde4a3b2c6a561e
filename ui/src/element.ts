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
