/** A thumbnail that cannot be shown (not really an image, gone) steps aside for the icon. */
export function hideBrokenImage(event: Event): void {
  (event.target as HTMLImageElement).hidden = true;
}
