/**
 * Routes: the run list, and the pages of one run under `/runs/<id>/<page>`; the worker,
 * span and each page's own state live in the query so that every view can be linked.
 * History mode under the page's <base href> (the server falls back to index.html).
 */
import { createRouter, createWebHistory, type RouteRecordRaw } from 'vue-router'
import type { MessageKey } from '@/i18n'
import { appBase } from '@/api/client'
import { trackNavigation } from '@/composables/useQueryParam'

export interface RunPage {
  name: string
  path: string
  label: MessageKey
  component: RouteRecordRaw['component']
}

/** The pages of a run, in menu order. */
export const RUN_PAGES: RunPage[] = [
  { name: 'overview', path: 'overview', label: 'common.nav.overview', component: () => import('@/pages/OverviewPage.vue') },
  { name: 'step-trace', path: 'step-trace', label: 'common.nav.stepTrace', component: () => import('@/pages/StepTracePage.vue') },
  { name: 'operators', path: 'operators', label: 'common.nav.operators', component: () => import('@/pages/OperatorsPage.vue') },
  { name: 'kernels', path: 'kernels', label: 'common.nav.kernels', component: () => import('@/pages/KernelsPage.vue') },
  { name: 'roofline', path: 'roofline', label: 'common.nav.roofline', component: () => import('@/pages/RooflinePage.vue') },
  { name: 'data-pipeline', path: 'data-pipeline', label: 'common.nav.dataPipeline', component: () => import('@/pages/DataPipelinePage.vue') },
  { name: 'memory', path: 'memory', label: 'common.nav.memory', component: () => import('@/pages/MemoryPage.vue') },
  { name: 'communication', path: 'communication', label: 'common.nav.communication', component: () => import('@/pages/CommunicationPage.vue') },
  { name: 'cluster', path: 'cluster', label: 'common.nav.cluster', component: () => import('@/pages/ClusterPage.vue') },
  { name: 'modules', path: 'modules', label: 'common.nav.modules', component: () => import('@/pages/ModulesPage.vue') },
  { name: 'diff', path: 'diff', label: 'common.nav.diff', component: () => import('@/pages/DiffPage.vue') },
  { name: 'timeline', path: 'timeline', label: 'common.nav.timeline', component: () => import('@/pages/TimelinePage.vue') },
]

const routes: RouteRecordRaw[] = [
  { path: '/', name: 'runs', component: () => import('@/pages/RunListPage.vue') },
  {
    path: '/runs/:run',
    component: () => import('@/components/RunLayout.vue'),
    children: [
      { path: '', redirect: (to) => ({ name: 'overview', params: to.params, query: to.query }) },
      ...RUN_PAGES.map((p) => ({ path: p.path, name: p.name, component: p.component! })),
    ],
  },
  { path: '/:missing(.*)*', name: 'not-found', component: () => import('@/pages/NotFoundPage.vue') },
]

export function makeRouter() {
  const router = createRouter({ history: createWebHistory(appBase()), routes })
  trackNavigation(router) // page writers must know when their page is being left
  return router
}
