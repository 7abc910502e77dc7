// The screens, in a script chunk of their own (navigation/screenModules.ts) loaded after the first
// script: that one holds the shell (navigation, status bar, key screen) and the code every screen
// shares, so the first paint does not wait for the screens' code. It is asked for as the first script
// runs (preloadScreen in main.tsx), beside the shell's first render rather than after it.
import { lazy } from 'react';

type Screens = typeof import('./screenModules');

let loading: Promise<Screens> | undefined;
const loadScreens = () => (loading ??= import('./screenModules'));

function lazyScreen<K extends keyof Screens>(name: K) {
  return lazy(async () => ({ default: (await loadScreens())[name] }));
}

export const SkuListScreen = lazyScreen('SkuListScreen');
export const NamedRecordScreen = lazyScreen('NamedRecordScreen');
export const SkuScreen = lazyScreen('SkuScreen');
export const DisplaysScreen = lazyScreen('DisplaysScreen');
export const PlanogramScreen = lazyScreen('PlanogramScreen');
export const MhlScreen = lazyScreen('MhlScreen');
export const VisitsScreen = lazyScreen('VisitsScreen');
export const NewVisitScreen = lazyScreen('NewVisitScreen');
export const VisitScreen = lazyScreen('VisitScreen');
export const SettingsScreen = lazyScreen('SettingsScreen');

/** Starts loading the screens' code (errors surface when a screen renders). */
export function preloadScreens(): void {
  loadScreens().catch(() => undefined);
}
