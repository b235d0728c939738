/**
 * Registers a custom element once: loading the script twice (two bundles, a hot reload)
 * skips the second registration instead of throwing. Does nothing where there is no
 * `customElements` (server-side rendering).
 */
export function defineElement(tag: string, element: CustomElementConstructor): void {
  if (typeof customElements === 'undefined' || customElements.get(tag)) return;
  customElements.define(tag, element);
}
