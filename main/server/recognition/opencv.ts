// Loads the OpenCV WebAssembly build once per process. The module object is a thenable that resolves to
// itself, so awaiting it directly never settles; waiting for onRuntimeInitialized is the reliable way.
import { createRequire } from 'node:module';

export type OpenCv = typeof import('@techstark/opencv-js');

let loading: Promise<OpenCv> | undefined;

export function loadOpenCv(): Promise<OpenCv> {
  loading ??= new Promise<OpenCv>((resolve) => {
    const require = createRequire(import.meta.url);
    const cv = require('@techstark/opencv-js') as OpenCv & { onRuntimeInitialized?: () => void };
    // Strip the self-referencing `then` so the resolved value is not itself awaited forever.
    const ready = () => {
      delete (cv as { then?: unknown }).then;
      resolve(cv);
    };
    // Mat appears only once the runtime is up (another module may have loaded it first).
    if (typeof (cv as { Mat?: unknown }).Mat === 'function') ready();
    else cv.onRuntimeInitialized = ready;
  });
  return loading;
}
