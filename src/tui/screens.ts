/**
 * Every screen by route, each loaded when first opened: Home's first frame imports none of the
 * Player's, Live's or the reveal's modules (images, maps, geography, the runner's policies).
 * Home itself is imported up front: lazy, its module would load behind the workspace's (SQLite, zod,
 * the store), which the app starts opening at mount, and the first frame would wait for both.
 * Adding a screen: a route variant (state/navigation.ts), its module under screens/, a line here
 * (the type below fails until there is one) and its entry on Home's menu.
 */
import { lazy, type ComponentType } from 'react';
import { HomeScreen } from './screens/HomeScreen.js';
import type { Route, RouteOf, ScreenName } from './state/navigation.js';

export type ScreenProps<S extends ScreenName> = { route: RouteOf<S> };

type Screen<S extends ScreenName> = ComponentType<ScreenProps<S>>;

function screen<S extends ScreenName>(load: () => Promise<Screen<S>>): Screen<S> {
  return lazy(async () => ({ default: await load() }));
}

const SCREENS: { [S in ScreenName]: Screen<S> } = {
  home: HomeScreen,
  episodes: screen(async () => (await import('./screens/EpisodesScreen.js')).EpisodesScreen),
  player: screen(async () => (await import('./screens/PlayerScreen.js')).PlayerScreen),
  watch: screen(async () => (await import('./screens/WatchScreen.js')).WatchScreen),
  live: screen(async () => (await import('./screens/LiveScreen.js')).LiveScreen),
  splits: screen(async () => (await import('./screens/SplitsScreen.js')).SplitsScreen),
  audit: screen(async () => (await import('./screens/AuditScreen.js')).AuditScreen),
  eval: screen(async () => (await import('./screens/EvalScreen.js')).EvalScreen),
  train: screen(async () => (await import('./screens/TrainScreen.js')).TrainScreen),
  compare: screen(async () => (await import('./screens/CompareScreen.js')).CompareScreen),
};

/** The screen a route opens; the union of routes meets the union of screens only here. */
export function screenOf(route: Route): Screen<ScreenName> {
  return SCREENS[route.screen] as Screen<ScreenName>;
}
