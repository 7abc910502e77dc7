// The shell: navigation, the current screen, the status bar; the API key screen when there is no
// accepted key.
import { useEffect, useState } from 'react';
import { getInfo, getSyncStatus } from './api/endpoints';
import { ErrorMessage, Loading } from './components/StateMessage';
import { StatusBar } from './components/StatusBar';
import { hrefFor, type Route } from './navigation/routes';
import { useScreens, type Screens } from './navigation/screens';
import { useRoute } from './navigation/useRoute';
import { ApiKeyScreen } from './screens/login/ApiKeyScreen';
import { sessionStore, useSession } from './stores/session';

function Screen({ route, screens }: { route: Route; screens: Screens }) {
  const { DisplaysScreen, MhlScreen, NamedRecordScreen, NewVisitScreen, OverviewScreen, PlanogramScreen, PricesScreen, ReviewQueueScreen, SettingsScreen, SkuListScreen, SkuScreen, VisitScreen, VisitsScreen } = screens;
  switch (route.screen) {
    case 'catalog':
      return route.collection === 'sku' ? <SkuListScreen /> : <NamedRecordScreen key={route.collection} collection={route.collection} />;
    case 'sku':
      return <SkuScreen key={route.id} id={route.id} />;
    case 'displays':
      return <DisplaysScreen />;
    case 'planogram':
      return <PlanogramScreen key={route.id} id={route.id} />;
    case 'mhl':
      return <MhlScreen key={route.id} id={route.id} />;
    case 'visits':
      return <VisitsScreen />;
    case 'new-visit':
      return <NewVisitScreen />;
    case 'visit':
      return <VisitScreen key={route.id} id={route.id} />;
    case 'settings':
      return <SettingsScreen />;
    case 'prices':
      return <PricesScreen />;
    case 'overview':
      return <OverviewScreen />;
    case 'review-queue':
      return <ReviewQueueScreen />;
  }
}

/** An address that names no screen: the app's first screen is chosen for the device. */
const bareAddress = (hash: string) => /^#?\/?$/.test(hash);

const NAV: Array<{ label: string; route: Route; active(r: Route): boolean }> = [
  { label: 'Overview', route: { screen: 'overview' }, active: (r) => r.screen === 'overview' || r.screen === 'review-queue' },
  { label: 'Visits', route: { screen: 'visits' }, active: (r) => ['visits', 'new-visit', 'visit'].includes(r.screen) },
  { label: 'Brands', route: { screen: 'catalog', collection: 'brands' }, active: (r) => r.screen === 'catalog' && r.collection === 'brands' },
  { label: 'Categories', route: { screen: 'catalog', collection: 'categories' }, active: (r) => r.screen === 'catalog' && r.collection === 'categories' },
  {
    label: 'Manufacturers',
    route: { screen: 'catalog', collection: 'manufacturers' },
    active: (r) => r.screen === 'catalog' && r.collection === 'manufacturers',
  },
  { label: 'SKUs', route: { screen: 'catalog', collection: 'sku' }, active: (r) => (r.screen === 'catalog' && r.collection === 'sku') || r.screen === 'sku' },
  { label: 'Displays & planograms', route: { screen: 'displays' }, active: (r) => ['displays', 'planogram', 'mhl'].includes(r.screen) },
  { label: 'Prices', route: { screen: 'prices' }, active: (r) => r.screen === 'prices' },
  { label: 'Settings', route: { screen: 'settings' }, active: (r) => r.screen === 'settings' },
];

export function App() {
  const route = useRoute();
  const token = useSession((s) => s.credentials.token);
  const api = useSession((s) => s.api);
  const connection = useSession((s) => s.connection);
  const [checked, setChecked] = useState(false);
  // Opened on no particular screen: a supervisor's laptop (the device role the central gave it at its
  // last pull) opens on the overview, where to act first; an auditor's, or one not syncing, on the visits.
  const [landing, setLanding] = useState(() => bareAddress(window.location.hash));
  // The screens' code, loaded beside the shell (navigation/screens.tsx).
  const { screens, error: screensError, retry } = useScreens();

  useEffect(() => {
    const online = () => sessionStore().getState().setBrowserOnline(navigator.onLine);
    online();
    window.addEventListener('online', online);
    window.addEventListener('offline', online);
    return () => {
      window.removeEventListener('online', online);
      window.removeEventListener('offline', online);
    };
  }, []);

  // Check the key once up front, so a wrong key leads to the key screen rather than to errors.
  useEffect(() => {
    setChecked(false);
    if (!token) return;
    getInfo(api).then(
      () => setChecked(true),
      () => setChecked(true),
    );
  }, [api, token]);

  useEffect(() => {
    if (!landing || !token || !checked) return;
    let live = true;
    getSyncStatus(api)
      .then(
        (status) => {
          if (live && status.device_role === 'supervisor' && bareAddress(window.location.hash)) window.location.replace(hrefFor({ screen: 'overview' }));
        },
        () => undefined,
      )
      .finally(() => live && setLanding(false));
    return () => {
      live = false;
    };
  }, [landing, token, checked, api]);

  if (!token || (checked && connection === 'unauthorized')) {
    return (
      <ApiKeyScreen
        rejected={!!token && connection === 'unauthorized'}
        onKey={(key) => sessionStore().getState().useKey(key, window.sessionStorage)}
      />
    );
  }

  return (
    <div className="app">
      <a
        className="skip-link"
        href={hrefFor(route)}
        onClick={(e) => {
          // The hash addresses screens, so move focus rather than following an in-page anchor.
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header className="app-header">
        <h1>Shelf Audit</h1>
        <nav aria-label="Main">
          <ul>
            {NAV.map((n) => (
              <li key={n.label}>
                <a href={hrefFor(n.route)} aria-current={n.active(route) ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {screens && !landing ? (
          <Screen route={route} screens={screens} />
        ) : screensError ? (
          <ErrorMessage message="The app's screens could not be loaded from the local server." onRetry={retry} />
        ) : (
          <Loading what="the screen" />
        )}
      </main>
      <StatusBar />
    </div>
  );
}
