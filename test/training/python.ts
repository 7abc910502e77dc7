// The detector's training tools (models/training) are Python: Debian's python3 with OpenCV, NumPy,
// PyTorch and ONNX (python3-opencv python3-torch python3-onnx; `.ci/run` installs them). Tests run them
// as their users do, as programs.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { DATA } from '../recognition/fixtures.js';

export const PYTHON = process.env.PYTHON ?? '/usr/bin/python3';
export const TRAINING = path.resolve('models/training');

/** Runs `PYTHON args...` in models/training with the shared data as the generator's textures. */
export function runPython(args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync(PYTHON, args, {
    cwd: TRAINING,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, SHELF_DATA: DATA, PYTHONDONTWRITEBYTECODE: '1', ...env },
  });
  if (r.error) throw new Error(`${PYTHON} could not run (${r.error.message}): install python3-opencv python3-torch python3-onnx`);
  if (r.status !== 0) throw new Error(`${PYTHON} ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return r.stdout;
}
