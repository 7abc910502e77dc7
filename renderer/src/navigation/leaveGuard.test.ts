import { afterEach, describe, expect, it, vi } from 'vitest';

// A stand-in window: the guard only adds and removes its beforeunload listener.
const listeners = new Map<string, EventListener>();
vi.stubGlobal('window', {
  addEventListener: (type: string, fn: EventListener) => listeners.set(type, fn),
  removeEventListener: (type: string) => listeners.delete(type),
});
const { guardLeaving, mayLeave } = await import('./leaveGuard');

describe('leave guard', () => {
  const release: Array<() => void> = [];
  afterEach(() => release.splice(0).forEach((r) => r()));

  it('lets the user go when nothing is unsaved, without asking', () => {
    const ask = vi.fn(() => false);
    expect(mayLeave(ask)).toBe(true);
    expect(ask).not.toHaveBeenCalled();
    expect(listeners.has('beforeunload')).toBe(false);
  });

  it('asks with the screen\'s message while it has unsaved work, and holds the page on unload', () => {
    let dirty = true;
    release.push(guardLeaving(() => (dirty ? 'Unsaved corrections' : null)));
    const ask = vi.fn((_: string) => false);
    expect(mayLeave(ask)).toBe(false);
    expect(ask).toHaveBeenCalledWith('Unsaved corrections');
    expect(mayLeave(() => true)).toBe(true);

    const event = { preventDefault: vi.fn(), returnValue: undefined as unknown };
    listeners.get('beforeunload')!(event as unknown as Event);
    expect(event.preventDefault).toHaveBeenCalled();
    dirty = false;
    const clean = { preventDefault: vi.fn() };
    listeners.get('beforeunload')!(clean as unknown as Event);
    expect(clean.preventDefault).not.toHaveBeenCalled();

    release.pop()!();
    expect(listeners.has('beforeunload')).toBe(false);
  });
});
