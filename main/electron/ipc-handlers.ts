// What the allowlisted IPC calls do. Photos are read here and handed over as bytes: the sandboxed page
// can neither read a path nor should it learn one.
import type { BrowserWindow } from 'electron';
import { dialog, shell } from 'electron';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { IpcHandlers, PickedPhoto, SessionInfo } from './ipc.js';

const PHOTO_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
};
/** A shelf photo from a phone is a few MB; this bounds what one dialog can pull into memory. */
export const MAX_PHOTO_BYTES = 50 * 1024 * 1024;
export const MAX_PHOTOS = 100;

export async function readPhotos(paths: string[]): Promise<PickedPhoto[]> {
  if (paths.length > MAX_PHOTOS) throw new Error(`Pick at most ${MAX_PHOTOS} photos at a time`);
  const photos: PickedPhoto[] = [];
  for (const file of paths) {
    const type = PHOTO_TYPES[path.extname(file).toLowerCase()];
    if (!type) throw new Error(`Not a supported photo: ${path.basename(file)}`);
    if ((await stat(file)).size > MAX_PHOTO_BYTES) throw new Error(`Photo too large: ${path.basename(file)}`);
    photos.push({ name: path.basename(file), type, bytes: new Uint8Array(await readFile(file)) });
  }
  return photos;
}

export function createIpcHandlers(options: {
  session: SessionInfo;
  dataDir: string;
  window: () => BrowserWindow | undefined;
}): IpcHandlers {
  return {
    session: () => options.session,
    async openPhotos({ multiple }) {
      const dialogOptions: Electron.OpenDialogOptions = {
        title: 'Add shelf photos',
        properties: multiple ? ['openFile', 'multiSelections'] : ['openFile'],
        filters: [{ name: 'Photos', extensions: Object.keys(PHOTO_TYPES).map((e) => e.slice(1)) }],
      };
      const win = options.window();
      const result = win ? await dialog.showOpenDialog(win, dialogOptions) : await dialog.showOpenDialog(dialogOptions);
      return result.canceled ? [] : readPhotos(result.filePaths);
    },
    async revealDataFolder() {
      const error = await shell.openPath(options.dataDir);
      if (error) throw new Error(error);
    },
  };
}
