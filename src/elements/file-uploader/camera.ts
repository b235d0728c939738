import { en } from '../shared/en.js';

/**
 * Whether to offer "Take a photo": on a device whose main pointer is a touch screen (phones
 * and tablets, where browsers honour `capture` and open the camera) and, where the browser
 * can list devices, one of them is a camera. On a desktop `capture` is ignored, so the
 * button would only open the file chooser a second way. The button's English words come
 * with this check (the button is drawn only after it), not in the first load.
 */
export async function hasCamera(): Promise<boolean> {
  fillCamera();
  if (!matchMedia('(pointer: coarse)').matches) return false;
  const devices = await navigator.mediaDevices?.enumerateDevices?.().catch(() => undefined);
  return devices ? devices.some((device) => device.kind === 'videoinput') : true;
}

/** Adds the camera button's words to the English translation. */
export function fillCamera(): void {
  en.uploader.takePhoto = 'Take a photo';
}
