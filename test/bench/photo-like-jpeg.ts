import sharp from 'sharp';

/**
 * A photo-like JPEG made in Node (the page's `photo.ts` makes one in a browser): smooth
 * gradients, soft translucent shapes and grain, at `quality` 90, as a camera writes it. A
 * 12 MP one is about 3.6 MB, against about 6.6 MB for a noise JPEG of the same size: a
 * camera photo's entropy lies between the two, nearer to this one.
 */
export async function photoLikeJpeg(width: number, height: number, quality = 90): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      pixels[i] = 30 + (200 * x) / width;
      pixels[i + 1] = 60 + (150 * y) / height + 20 * Math.sin(x / 300);
      pixels[i + 2] = 140 - (100 * (x + y)) / (width + height) + 30 * Math.cos(y / 200);
    }
  }
  let seed = 7;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const at = (side: number) => Math.floor(random() * side);
  const shapes: string[] = [];
  for (let i = 0; i < 300; i++) {
    shapes.push(
      `<circle cx="${at(width)}" cy="${at(height)}" r="${at(300)}" fill="hsl(${at(360)},60%,50%)" fill-opacity="0.35"/>`,
      `<rect x="${at(width)}" y="${at(height)}" width="${at(200)}" height="${at(400)}" fill="hsl(${at(360)},50%,40%)" fill-opacity="0.5"/>`,
    );
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${shapes.join('')}</svg>`;
  const raw = { width, height, channels: 3 } as const;
  const grain = await sharp({
    create: {
      ...raw,
      background: { r: 128, g: 128, b: 128 },
      noise: { type: 'gaussian', mean: 128, sigma: 22 },
    },
  })
    .raw()
    .toBuffer();
  return sharp(pixels, { raw })
    .composite([{ input: Buffer.from(svg) }, { input: grain, raw, blend: 'soft-light' }])
    .jpeg({ quality })
    .toBuffer();
}
