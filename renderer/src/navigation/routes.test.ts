import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE, hrefFor, parseRoute, type Route } from './routes';

describe('routes', () => {
  const routes: Route[] = [
    { screen: 'catalog', collection: 'brands' },
    { screen: 'catalog', collection: 'sku' },
    { screen: 'sku', id: 'a b/c' },
    { screen: 'displays' },
    { screen: 'planogram', id: 'p1' },
    { screen: 'mhl', id: 'm1' },
    { screen: 'visits' },
    { screen: 'new-visit' },
    { screen: 'visit', id: '01a2-x' },
    { screen: 'settings' },
    { screen: 'prices' },
  ];

  it('round-trips every screen through its hash, ids with odd characters included', () => {
    for (const r of routes) expect(parseRoute(hrefFor(r))).toEqual(r);
  });

  it('sends unknown or empty hashes to the visits list', () => {
    expect(parseRoute('')).toEqual(DEFAULT_ROUTE);
    expect(parseRoute('#/nowhere')).toEqual(DEFAULT_ROUTE);
    expect(parseRoute('#/catalog/unknown')).toEqual({ screen: 'catalog', collection: 'brands' });
  });
});
