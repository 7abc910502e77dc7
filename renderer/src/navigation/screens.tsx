// The screens, each its own script chunk loaded when first shown: the app's first script holds the
// shell (navigation, status bar, key screen) and what every screen shares, so the first paint does
// not wait for every screen's code. The screen the app opens on is asked for as the first script
// runs (preloadScreen in main.tsx), beside the shell's first render rather than after it.
import { lazy, type ComponentType } from 'react';
import type { Route } from './routes';

// `any` props: one helper takes every screen module, each keeping its own props.
function lazyScreen<M extends Record<K, ComponentType<any>>, K extends keyof M>(load: () => Promise<M>, name: K) {
  let loading: Promise<M> | undefined;
  const preload = () => (loading ??= load());
  const Screen = lazy(async () => ({ default: (await preload())[name] }));
  return Object.assign(Screen, { preload });
}

export const SkuListScreen = lazyScreen(() => import('../screens/catalog/SkuListScreen'), 'SkuListScreen');
export const NamedRecordScreen = lazyScreen(() => import('../screens/catalog/NamedRecordScreen'), 'NamedRecordScreen');
export const SkuScreen = lazyScreen(() => import('../screens/catalog/SkuScreen'), 'SkuScreen');
export const DisplaysScreen = lazyScreen(() => import('../screens/displays/DisplaysScreen'), 'DisplaysScreen');
export const PlanogramScreen = lazyScreen(() => import('../screens/displays/PlanogramScreen'), 'PlanogramScreen');
export const MhlScreen = lazyScreen(() => import('../screens/displays/MhlScreen'), 'MhlScreen');
export const VisitsScreen = lazyScreen(() => import('../screens/visits/VisitsScreen'), 'VisitsScreen');
export const NewVisitScreen = lazyScreen(() => import('../screens/visits/NewVisitScreen'), 'NewVisitScreen');
export const VisitScreen = lazyScreen(() => import('../screens/visits/VisitScreen'), 'VisitScreen');
export const SettingsScreen = lazyScreen(() => import('../screens/settings/SettingsScreen'), 'SettingsScreen');

/** The screen a route shows; its code starts loading when this is called. */
export function screenFor(route: Route) {
  switch (route.screen) {
    case 'catalog':
      return route.collection === 'sku' ? SkuListScreen : NamedRecordScreen;
    case 'sku':
      return SkuScreen;
    case 'displays':
      return DisplaysScreen;
    case 'planogram':
      return PlanogramScreen;
    case 'mhl':
      return MhlScreen;
    case 'visits':
      return VisitsScreen;
    case 'new-visit':
      return NewVisitScreen;
    case 'visit':
      return VisitScreen;
    case 'settings':
      return SettingsScreen;
  }
}

/** Starts loading the code of the screen a route shows (errors surface when it renders). */
export function preloadScreen(route: Route): void {
  screenFor(route)
    .preload()
    .catch(() => undefined);
}
