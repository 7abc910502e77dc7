// The recognition errors reported on the scene on screen: the reviewer's to-do list.
import type { SceneMessage } from '../../../api/types';

export function ReportedErrors({ messages, nameOf }: { messages: readonly SceneMessage[]; nameOf(sku: string | null): string }) {
  return (
    <section aria-labelledby="review-todo-title">
      <h4 id="review-todo-title">Reported recognition errors</h4>
      {messages.length === 0 ? (
        <p className="muted">None reported for this scene.</p>
      ) : (
        <ul className="review-todo" aria-label="Recognition errors to check">
          {messages.map((m) => (
            <li key={m.id}>
              <strong>{nameOf(m.sku_gid)}</strong>
              {m.message ? `: ${m.message}` : ''} <span className="muted">({new Date(m.created_date).toLocaleString()})</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
