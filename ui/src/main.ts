import { createApp } from 'vue'
import App from './App.vue'
import { installElement } from './element'
import { makeRouter } from './router'
import './style.css'

const app = createApp(App)
installElement(app)
app.use(makeRouter())
app.mount('#app')
