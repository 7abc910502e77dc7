// Pre-processing alone: channel order and planar layout, resize/pad geometry, EXIF orientation. The model is
// trained to be colour-blind enough that a swapped channel order barely moves its recall, so it is checked
// here directly.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

import { prepare } from '../../main/server/recognition/detector/preprocess.js';

describe('prepare', () => {
  it('gives planar RGB in 0..255 with the image at the top left and grey padding to multiples of 32', async () => {
    // 100x50: left half red, right half blue.
    const left = await sharp({ create: { width: 50, height: 50, channels: 3, background: { r: 255, g: 0, b: 0 } } }).png().toBuffer();
    const img = await sharp({ create: { width: 100, height: 50, channels: 3, background: { r: 0, g: 0, b: 255 } } })
      .composite([{ input: left, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const p = await prepare(img, 1024);
    expect([p.width, p.height, p.inputWidth, p.inputHeight, p.scale]).toEqual([100, 50, 128, 64, 1]);
    const plane = 128 * 64;
    const at = (c: number, x: number, y: number) => p.tensor[c * plane + y * 128 + x];
    expect([at(0, 10, 10), at(1, 10, 10), at(2, 10, 10)]).toEqual([255, 0, 0]);
    expect([at(0, 90, 40), at(1, 90, 40), at(2, 90, 40)]).toEqual([0, 0, 255]);
    expect([at(0, 120, 10), at(1, 10, 60), at(2, 127, 63)]).toEqual([127, 127, 127]);
  });

  it('shrinks to the input size by the long side, never enlarges', async () => {
    const big = await sharp({ create: { width: 2000, height: 1000, channels: 3, background: '#808080' } }).jpeg().toBuffer();
    const p = await prepare(big, 1024);
    expect([p.inputWidth, p.inputHeight]).toEqual([1024, 512]);
    expect(p.scale).toBeCloseTo(0.512);
    const small = await prepare({ data: new Uint8Array(40 * 30 * 3), width: 40, height: 30, channels: 3 }, 1024);
    expect([small.width, small.height, small.inputWidth, small.inputHeight, small.scale]).toEqual([40, 30, 64, 32, 1]);
  });

  it('applies the EXIF orientation: sizes and pixels as displayed', async () => {
    // Displayed: 60 wide x 40 high, red top row band. Stored turned anticlockwise with orientation 6.
    const band = await sharp({ create: { width: 60, height: 10, channels: 3, background: { r: 255, g: 0, b: 0 } } }).png().toBuffer();
    const shown = await sharp({ create: { width: 60, height: 40, channels: 3, background: { r: 0, g: 255, b: 0 } } })
      .composite([{ input: band, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const stored = await sharp(shown).rotate(-90).withMetadata({ orientation: 6 }).png().toBuffer();
    const p = await prepare(stored, 1024);
    expect([p.width, p.height]).toEqual([60, 40]);
    const plane = p.inputWidth * p.inputHeight;
    expect([p.tensor[30], p.tensor[plane + 30]]).toEqual([255, 0]); // top row: red
    expect([p.tensor[30 * p.inputWidth + 30], p.tensor[plane + 30 * p.inputWidth + 30]]).toEqual([0, 255]);
  });
});
