/** The demo dataset: its task index, its synthetic panoramas and the lazy cache that holds them. */

export { demoPanoramaPath, ensureAllDemoPanoramas, ensureDemoPanorama, type EnsureAllOptions } from './cache.js';
export { PANORAMA_HEIGHT, PANORAMA_WIDTH, columnOfAzimuth, renderDemoPanorama, rowOfElevation } from './panorama.js';
export {
  COUNTRY_CLUES, DemoSceneError, demoScene, noonSun, solarDeclinationDeg,
  type CountryClues, type PanoramaFrame, type PanoramaTask, type Scene, type SunPosition,
} from './scenes.js';
export { DEMO_SITES, type Climate, type DemoSite } from './sites.js';
export { DEMO_ATTRIBUTION, buildDemoTasks, toJsonl, type DemoFrame, type DemoTask } from './tasks.js';
