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

/** What knnMatch (k = 2) fills: per query descriptor, its two nearest train descriptors. */
interface KnnMatches {
  size(): number;
  get(i: number): { size(): number; get(j: number): { queryIdx: number; trainIdx: number; distance: number } };
}

/** Lowe's ratio test: the [query, train] index pairs whose best match clearly beats the second best. */
export function ratioTestPairs(knn: KnnMatches, ratio: number): Array<[query: number, train: number]> {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < knn.size(); i++) {
    const pair = knn.get(i);
    if (pair.size() < 2) continue;
    const m = pair.get(0);
    if (m.distance < ratio * pair.get(1).distance) pairs.push([m.queryIdx, m.trainIdx]);
  }
  return pairs;
}
