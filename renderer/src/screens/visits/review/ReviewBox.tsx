// One box on the photo under review, in its product's colour: dashed and marked "?" without a product
// ("∅" when unknown on purpose); the selected one with a handle at each corner to resize it.
import type { PointerEvent as ReactPointerEvent } from 'react';
import { boxRect, UNKNOWN_COLOUR } from '../skuColours';
import type { EditBox, Rect } from './reviewStore';

const CORNERS = [
  [-1, -1],
  [1, -1],
  [-1, 1],
  [1, 1],
] as const;

export function ReviewBox({
  box: b,
  index,
  rect,
  name,
  colour,
  selected,
  accepted,
  drawing,
  handle,
  onPointerDown,
  onResize,
}: {
  box: EditBox;
  index: number;
  /** Where it is drawn (while dragged, not where the store has it). */
  rect: Rect;
  name: string;
  colour: string;
  selected: boolean;
  accepted: boolean;
  drawing: boolean;
  /** Size of the corner handles, in the photo's pixels. */
  handle: number;
  onPointerDown(e: ReactPointerEvent): void;
  /** A drag from a corner starts, `anchor` the opposite corner. */
  onResize(e: ReactPointerEvent, anchor: { x: number; y: number }): void;
}) {
  const r = boxRect(rect);
  return (
    <g
      role="button"
      tabIndex={-1}
      aria-label={`Box ${index + 1}: ${name}${accepted ? ', accepted' : ''}`}
      aria-pressed={selected}
      className={`box${b.sku_id === null ? ' box-unknown' : ''}${selected ? ' box-active' : ''}${accepted ? ' box-accepted' : ''}`}
      onPointerDown={onPointerDown}
    >
      <rect
        {...r}
        fill={colour}
        fillOpacity={selected ? 0.3 : 0.1}
        stroke={selected ? undefined : colour}
        strokeDasharray={b.sku_id === null && !b.unknown_on_purpose ? '6 4' : undefined}
      />
      {b.sku_id === null && (
        <text x={r.x + r.width / 2} y={r.y + r.height / 2} fontSize={Math.min(r.width, r.height) * 0.5} textAnchor="middle" dominantBaseline="central" fill={UNKNOWN_COLOUR}>
          {b.unknown_on_purpose ? '∅' : '?'}
        </text>
      )}
      {selected &&
        !drawing &&
        CORNERS.map(([dx, dy]) => (
          <rect
            key={`${dx}${dy}`}
            className={`handle handle-${dx * dy > 0 ? 'nwse' : 'nesw'}`}
            x={r.x + (dx > 0 ? r.width : 0) - handle / 2}
            y={r.y + (dy > 0 ? r.height : 0) - handle / 2}
            width={handle}
            height={handle}
            onPointerDown={(e) => onResize(e, { x: b.x - (dx * b.w) / 2, y: b.y - (dy * b.h) / 2 })}
          />
        ))}
    </g>
  );
}
