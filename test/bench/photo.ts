import type { Page } from 'playwright-core';

/**
 * A photo-like JPEG of `width` x `height` made in the page, as `window.photo` (a File named
 * photo.jpg); answers its size in bytes. Gradients, shapes and grain: it compresses about as
 * a photo does. The benches of images made smaller and of the image editor use it.
 */
export async function makePhoto(page: Page, width: number, height: number): Promise<number> {
  return page.evaluate(
    async ({ width, height }) => {
      // Gradients, shapes and grain: compresses about as a photo does (several MB).
      const canvas = new OffscreenCanvas(width, height);
      const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
      const gradient = context.createLinearGradient(0, 0, width, height);
      gradient.addColorStop(0, '#1e3a8a');
      gradient.addColorStop(0.5, '#f59e0b');
      gradient.addColorStop(1, '#065f46');
      context.fillStyle = gradient;
      context.fillRect(0, 0, width, height);
      let seed = 7;
      const random = () => {
        seed = (seed * 16807) % 2147483647;
        return seed / 2147483647;
      };
      for (let i = 0; i < 4000; i++) {
        context.fillStyle = `hsla(${random() * 360}, 70%, 50%, 0.35)`;
        context.beginPath();
        context.arc(random() * width, random() * height, random() * 120, 0, Math.PI * 2);
        context.fill();
      }
      const tile = context.createImageData(512, 512);
      for (let i = 0; i < tile.data.length; i += 4) {
        const grain = random() * 60;
        tile.data.set([grain, grain, grain, 40], i);
      }
      const grain = new OffscreenCanvas(512, 512);
      grain.getContext('2d')?.putImageData(tile, 0, 0);
      context.fillStyle = context.createPattern(grain, 'repeat') as CanvasPattern;
      context.fillRect(0, 0, width, height);
      const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.92 });
      (window as unknown as { photo: File }).photo = new File([blob], 'photo.jpg', {
        type: 'image/jpeg',
      });
      return blob.size;
    },
    { width, height },
  );
}
