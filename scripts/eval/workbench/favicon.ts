// The workbench's icon, drawn in code (three bars of a chart) and packed as a Windows icon (.ico) of 16 and 32 pixels,
// so `/favicon.ico`, which browsers ask for unprompted, is a real icon and not a 404 in the page's console.

type Rgba = readonly [number, number, number, number];

const CLEAR: Rgba = [0, 0, 0, 0];
const BAR: Rgba = [0x1f, 0x5f, 0xa8, 0xff];
const BASE: Rgba = [0x33, 0x33, 0x33, 0xff];

/** The colour at (x, y), y from the top, on a `size`-pixel square: three rising bars on a base line. */
export function chartPixel(x: number, y: number, size: number): Rgba {
  const unit = size / 16;
  const row = Math.floor(y / unit);
  const col = Math.floor(x / unit);
  if (row === 14 && col >= 1 && col <= 14) return BASE;
  const bars = [
    { from: 2, to: 4, top: 8 },
    { from: 6, to: 9, top: 4 },
    { from: 11, to: 13, top: 1 },
  ];
  return bars.some((b) => col >= b.from && col <= b.to && row >= b.top && row < 14) ? BAR : CLEAR;
}

/** One 32-bit image of an icon: a BITMAPINFOHEADER (height doubled, as .ico wants), BGRA rows bottom up, an empty AND mask. */
function iconImage(size: number, pixel: (x: number, y: number, size: number) => Rgba): Buffer {
  const maskRow = Math.ceil(size / 32) * 4;
  const image = Buffer.alloc(40 + size * size * 4 + maskRow * size);
  image.writeUInt32LE(40, 0);
  image.writeInt32LE(size, 4);
  image.writeInt32LE(size * 2, 8);
  image.writeUInt16LE(1, 12);
  image.writeUInt16LE(32, 14);
  image.writeUInt32LE(size * size * 4 + maskRow * size, 20);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const [r, g, b, a] = pixel(x, size - 1 - y, size);
      image.set([b, g, r, a], 40 + (y * size + x) * 4);
    }
  return image;
}

/** A .ico holding one image per size (each under 256 pixels), drawn by `pixel`. */
export function iconFile({ sizes = [16, 32], pixel = chartPixel }: { sizes?: number[]; pixel?: (x: number, y: number, size: number) => Rgba } = {}): Buffer {
  if (sizes.some((s) => !Number.isInteger(s) || s < 1 || s > 255)) throw new Error(`icon sizes: whole numbers 1-255, not ${sizes.join(', ')}`);
  const images = sizes.map((size) => iconImage(size, pixel));
  const head = Buffer.alloc(6 + 16 * sizes.length);
  head.writeUInt16LE(0, 0);
  head.writeUInt16LE(1, 2);
  head.writeUInt16LE(sizes.length, 4);
  let offset = head.length;
  sizes.forEach((size, i) => {
    const entry = 6 + 16 * i;
    head.writeUInt8(size, entry);
    head.writeUInt8(size, entry + 1);
    head.writeUInt16LE(1, entry + 4);
    head.writeUInt16LE(32, entry + 6);
    head.writeUInt32LE(images[i]!.length, entry + 8);
    head.writeUInt32LE(offset, entry + 12);
    offset += images[i]!.length;
  });
  return Buffer.concat([head, ...images]);
}
