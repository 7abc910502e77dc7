// The EAN a price tag prints as a barcode (EAN-13, EAN-8, or a UPC-A read as its EAN-13), decoded
// with ZXing-C++ compiled to WebAssembly (zxing-wasm). The .wasm file is read from the package on
// disk: the library's default fetches it from a CDN, which an offline app must never do.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

import { prepareZXingModule, readBarcodes, type ReaderOptions } from 'zxing-wasm/reader';

import { cropRaw, type RawPixels, type Rect } from '../raw-pixels.js';

let loading: Promise<unknown> | undefined;

/** Where zxing-wasm's reader module is (node_modules; app.asar.unpacked in the packaged app). */
export function zxingWasmPath(): string {
  return createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm');
}

function load(): Promise<unknown> {
  loading ??= readFile(zxingWasmPath())
    .then((bytes) =>
      prepareZXingModule({
        overrides: {
          wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
          // Emscripten still names the file it would load: the package's own folder, never a CDN URL.
          locateFile: (file: string) => path.join(path.dirname(zxingWasmPath()), file),
        },
        fireImmediately: true,
      }),
    )
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}

const OPTIONS: ReaderOptions = {
  formats: ['EAN13', 'EAN8', 'UPCA'],
  tryHarder: true,
  tryRotate: false,
  tryInvert: false,
  maxNumberOfSymbols: 1,
};

/** The EAN-13 (or EAN-8) printed on an image or a region of it; null when none is decoded. */
export async function readEan(image: RawPixels, region?: Rect | null): Promise<string | null> {
  await load();
  const crop = region ? cropRaw(image, region) : image;
  // ZXing takes RGBA (as an ImageData) and turns it grey itself.
  const n = crop.width * crop.height;
  const rgba = new Uint8ClampedArray(n * 4);
  const c = crop.channels;
  for (let i = 0; i < n; i++) {
    const grey = c < 3;
    rgba[i * 4] = crop.data[i * c];
    rgba[i * 4 + 1] = crop.data[grey ? i * c : i * c + 1];
    rgba[i * 4 + 2] = crop.data[grey ? i * c : i * c + 2];
    rgba[i * 4 + 3] = 255;
  }
  // Node has no ImageData class; the reader only looks for data, width and height.
  const image2d = { data: rgba, width: crop.width, height: crop.height, colorSpace: 'srgb' } as unknown as Parameters<typeof readBarcodes>[0];
  const results = await readBarcodes(image2d, OPTIONS);
  for (const r of results) {
    if (!r.isValid || !/^\d+$/.test(r.text)) continue;
    if (r.format === 'EAN13' && r.text.length === 13) return r.text;
    if (r.format === 'EAN8' && r.text.length === 8) return r.text;
    // A UPC-A is the EAN-13 with a leading 0: the catalog keeps EAN-13s.
    if (r.format === 'UPCA' && r.text.length === 12) return `0${r.text}`;
  }
  return null;
}
