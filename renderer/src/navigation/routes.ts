// The screens are addressed by the location hash (#/catalog/sku/ID): the server serves one page at
// `/`, and a reload must come back to the same screen.

export type Route =
  | { screen: 'catalog'; collection: 'brands' | 'categories' | 'manufacturers' | 'sku' }
  | { screen: 'sku'; id: string }
  | { screen: 'displays' }
  | { screen: 'planogram'; id: string }
  | { screen: 'mhl'; id: string }
  | { screen: 'visits' }
  | { screen: 'new-visit' }
  | { screen: 'visit'; id: string }
  | { screen: 'settings' }
  | { screen: 'prices' }
  | { screen: 'overview' }
  | { screen: 'review-queue' };

export const DEFAULT_ROUTE: Route = { screen: 'visits' };

const CATALOG = ['brands', 'categories', 'manufacturers', 'sku'] as const;

export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((p) => decodeURIComponent(p));
  const [first, second, third] = parts;
  switch (first) {
    case 'catalog':
      if (second === 'sku' && third) return { screen: 'sku', id: third };
      if ((CATALOG as readonly string[]).includes(second ?? ''))
        return { screen: 'catalog', collection: second as (typeof CATALOG)[number] };
      return { screen: 'catalog', collection: 'brands' };
    case 'displays':
      return { screen: 'displays' };
    case 'planograms':
      return second ? { screen: 'planogram', id: second } : { screen: 'displays' };
    case 'mhl':
      return second ? { screen: 'mhl', id: second } : { screen: 'displays' };
    case 'visits':
      if (second === 'new') return { screen: 'new-visit' };
      return second ? { screen: 'visit', id: second } : { screen: 'visits' };
    case 'settings':
      return { screen: 'settings' };
    case 'prices':
      return { screen: 'prices' };
    case 'overview':
      return second === 'queue' ? { screen: 'review-queue' } : { screen: 'overview' };
    default:
      return DEFAULT_ROUTE;
  }
}

export function hrefFor(route: Route): string {
  const e = encodeURIComponent;
  switch (route.screen) {
    case 'catalog':
      return `#/catalog/${route.collection}`;
    case 'sku':
      return `#/catalog/sku/${e(route.id)}`;
    case 'displays':
      return '#/displays';
    case 'planogram':
      return `#/planograms/${e(route.id)}`;
    case 'mhl':
      return `#/mhl/${e(route.id)}`;
    case 'visits':
      return '#/visits';
    case 'new-visit':
      return '#/visits/new';
    case 'visit':
      return `#/visits/${e(route.id)}`;
    case 'settings':
      return '#/settings';
    case 'prices':
      return '#/prices';
    case 'overview':
      return '#/overview';
    case 'review-queue':
      return '#/overview/queue';
  }
}
