/**
 * Dispatches a typed event declared in `HTMLElementEventMap`: it bubbles and crosses shadow
 * roots, so a page can listen anywhere above the element.
 */
export function emit<K extends keyof HTMLElementEventMap>(
  target: EventTarget,
  type: K,
  detail: HTMLElementEventMap[K] extends CustomEvent<infer D> ? D : never,
): boolean {
  return target.dispatchEvent(
    new CustomEvent(type, { detail, bubbles: true, composed: true, cancelable: false }),
  );
}
