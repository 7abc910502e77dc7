// PRICE_COMPLIANCE on the visit screen (issue 45): per SKU of the bay its expected price (the price
// list's, for the visit's shop and day), the prices read on its tags and a status in words, the
// share of checked SKUs at the right price, and the tags that price no product.
import type { PriceComplianceBody, PriceStatus } from '../../api/types';

export const PRICE_STATUS_LABEL: Record<PriceStatus, string> = {
  ok: 'OK',
  wrong_price: 'Wrong price',
  no_tag: 'No tag',
  unreadable: 'Unreadable',
  no_expected_price: 'Not in the price list',
};

const money = (price: string | null, currency: string | null) => (price === null ? '—' : `${price}${currency ? ` ${currency}` : ''}`);

export function PriceComplianceView({ report, nameOf }: { report: PriceComplianceBody; nameOf(sku: string | null): string }) {
  const where = `${report.shop ? `shop ${report.shop}` : 'every shop'} on ${report.day}`;
  return (
    <div className="price-compliance">
      {report.compliance === null ? (
        <p>No product here has a price in the price list for {where}: nothing to compare the tags with.</p>
      ) : (
        <p>
          <strong>{Math.round(report.compliance * 1000) / 10}%</strong> of the SKUs the price list prices show their price ({report.ok} of{' '}
          {report.checked}); prices of {where}.
        </p>
      )}
      <table aria-label="Price compliance">
        <thead>
          <tr>
            <th scope="col">SKU</th>
            <th scope="col">Facings</th>
            <th scope="col">Expected</th>
            <th scope="col">Found on tags</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {report.skus.map((s) => (
            <tr key={s.sku_id} className={`price-${s.status}`}>
              <th scope="row">{s.name ?? nameOf(s.sku_id)}</th>
              <td>{s.facings}</td>
              <td>{money(s.expected_price, s.expected_currency)}</td>
              <td>{s.found_prices.length ? s.found_prices.map((f) => money(f.price, f.currency)).join(', ') : '—'}</td>
              <td>
                <span className={`price-status price-status-${s.status}`}>{PRICE_STATUS_LABEL[s.status]}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {report.unlinked_tags.length > 0 && (
        <p role="note">
          {report.unlinked_tags.length} tag{report.unlinked_tags.length === 1 ? '' : 's'} pricing no known product (
          {report.unlinked_tags.filter((t) => t.product_index !== null).length} under a product not identified, the others under none):{' '}
          {report.unlinked_tags.map((t) => (t.status === 'read' ? money(t.price, t.currency) : 'unreadable')).join(', ')}.
        </p>
      )}
    </div>
  );
}
