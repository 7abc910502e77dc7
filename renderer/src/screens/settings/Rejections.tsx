// Changes the central refused for good: shown, never silently dropped (they do not block the queue).
import type { SyncStatus } from '../../api/types';

export function Rejections({ status }: { status: SyncStatus }) {
  if (status.rejections.length === 0) return null;
  return (
    <table aria-label="Refused changes">
      <caption>Changes the central refused</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Record</th>
          <th scope="col">Why</th>
        </tr>
      </thead>
      <tbody>
        {status.rejections.map((r) => (
          <tr key={`${r.device ?? ''}:${r.change_number}:${r.entity}:${r.record_id}`}>
            <td>{new Date(r.created_date).toLocaleString()}</td>
            <td>
              {r.entity} <code>{r.record_id}</code>
            </td>
            <td>{r.reason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
