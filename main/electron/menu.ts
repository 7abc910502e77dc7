// The application menu: the usual roles, plus the data and log folders (support asks for both) and
// the About box. Developer tools only in unpackaged builds.
import type { MenuItemConstructorOptions } from 'electron';
import { PRODUCT_NAME } from '../host/data-directory.js';

export interface MenuActions {
  about(): void;
  revealDataFolder(): void;
  revealLogsFolder(): void;
}

export function buildMenuTemplate(options: {
  platform: NodeJS.Platform;
  isPackaged: boolean;
  actions: MenuActions;
}): MenuItemConstructorOptions[] {
  const { platform, isPackaged, actions } = options;
  const mac = platform === 'darwin';
  const about: MenuItemConstructorOptions = { label: `About ${PRODUCT_NAME}`, click: () => actions.about() };
  const folders: MenuItemConstructorOptions[] = [
    { label: 'Show Data Folder', click: () => actions.revealDataFolder() },
    { label: 'Show Logs Folder', click: () => actions.revealLogsFolder() },
  ];
  const view: MenuItemConstructorOptions[] = [
    { role: 'reload' },
    ...(isPackaged ? [] : [{ role: 'toggleDevTools' } as MenuItemConstructorOptions]),
    { type: 'separator' },
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    { role: 'togglefullscreen' },
  ];
  return [
    ...(mac
      ? [
          {
            label: PRODUCT_NAME,
            submenu: [about, { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, { role: 'quit' }],
          } as MenuItemConstructorOptions,
        ]
      : []),
    { label: 'File', submenu: [...folders, { type: 'separator' }, mac ? { role: 'close' } : { role: 'quit' }] },
    { role: 'editMenu' },
    { label: 'View', submenu: view },
    { role: 'windowMenu' },
    { role: 'help', submenu: mac ? folders.slice(1) : [...folders.slice(1), { type: 'separator' }, about] },
  ];
}
