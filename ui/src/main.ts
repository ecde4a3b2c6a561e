import { createApp } from 'vue'
import App from './App.vue'
import { installElement } from './element'
import { makeRouter } from './router'
import './style.css'
import { useTheme } from './theme'

// the `dark` class before anything mounts, so a dark page never flashes white
useTheme()

const app = createApp(App)
installElement(app)
app.use(makeRouter())
app.mount('#app')
