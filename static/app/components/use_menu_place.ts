/** Where a menu opened at a point goes: kept inside the window, with one of its items focused. */
import { type RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/**
 * Places a menu opened at (`x`, `y`) so that all of it stays in the window, then focuses the first
 * element matching `focus` for the keyboard. Returns the ref for the menu and its position.
 */
export function useMenuPlace(
  at: { x: number; y: number },
  focus: string,
): { ref: RefObject<HTMLDivElement>; left: number; top: number } {
  const ref = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState({ left: at.x, top: at.y });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    setPos({
      left: Math.max(4, Math.min(at.x, innerWidth - r.width - 4)),
      top: Math.max(4, Math.min(at.y, innerHeight - r.height - 4)),
    });
    (el.querySelector(focus) as HTMLElement | null)?.focus();
  }, [at]);
  return { ref, ...pos };
}
