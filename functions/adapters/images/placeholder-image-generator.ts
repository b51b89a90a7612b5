/**
 * The offline writer's images: a deterministic placeholder (the same prompt gives the same
 * picture), drawn by sharp from an SVG we write ourselves (never a client's SVG): a gradient and
 * a few soft shapes whose colours and places come from a hash of the prompt. No text in it.
 */
import { createHash } from 'node:crypto';
import type { ImageGenerator } from '../../core/images/ports';
import { sharp } from './sharp-loader';

const WIDTH = 1536;
const HEIGHT = 1024;

export class PlaceholderImageGenerator implements ImageGenerator {
  readonly source = 'placeholder' as const;

  async generate(prompt: string): Promise<Buffer> {
    return sharp()(Buffer.from(placeholderSvg(prompt)))
      .png()
      .toBuffer();
  }
}

export function placeholderSvg(prompt: string): string {
  const hash = createHash('sha256').update(prompt).digest();
  const byte = (index: number) => hash[index % hash.length] ?? 0;
  const hue = (index: number) => Math.round((byte(index) / 255) * 360);
  const circles = Array.from({ length: 5 }, (_, index) => {
    const x = Math.round((byte(3 + index * 3) / 255) * WIDTH);
    const y = Math.round((byte(4 + index * 3) / 255) * HEIGHT);
    const r = 120 + Math.round((byte(5 + index * 3) / 255) * 260);
    return `<circle cx="${x}" cy="${y}" r="${r}" fill="hsl(${hue(20 + index)},60%,70%)" fill-opacity="0.45"/>`;
  }).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue(0)},55%,45%)"/><stop offset="1" stop-color="hsl(${hue(1)},55%,25%)"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>${circles}</svg>`;
}
