// The IPC allowlist: the only channels the main process answers, each with a TypeBox schema for its
// arguments and a check that the caller is the app's own top-level page. preload/index.ts uses the same
// channel names (test/electron/ipc.test.ts keeps the two lists equal).
import type { IpcMain, IpcMainEvent, IpcMainInvokeEvent } from 'electron';
import Type, { type TSchema } from 'typebox';
import Value from 'typebox/value';
import { type AppOrigin, isAppUrl } from './security.js';

export const IPC_CHANNELS = {
  /** Synchronous, once when the preload starts: what the bridge hands the page. */
  session: 'shelf-audit:session',
  openPhotos: 'shelf-audit:open-photos',
  revealDataFolder: 'shelf-audit:reveal-data-folder',
} as const;

export type IpcChannel = (typeof IPC_CHANNELS)[keyof typeof IPC_CHANNELS];

export interface SessionInfo {
  apiBaseUrl: string;
  token: string;
  appVersion: string;
}

export interface PickedPhoto {
  name: string;
  type: string;
  bytes: Uint8Array;
}

export interface IpcHandlers {
  session(): SessionInfo;
  openPhotos(options: { multiple?: boolean }): Promise<PickedPhoto[]>;
  revealDataFolder(): Promise<void>;
}

const NoArguments = Type.Tuple([]);
const OpenPhotosArguments = Type.Union([
  Type.Tuple([]),
  Type.Tuple([Type.Object({ multiple: Type.Optional(Type.Boolean()) }, { additionalProperties: false })]),
]);

const ALLOWLIST: Record<IpcChannel, { mode: 'sync' | 'invoke'; args: TSchema }> = {
  [IPC_CHANNELS.session]: { mode: 'sync', args: NoArguments },
  [IPC_CHANNELS.openPhotos]: { mode: 'invoke', args: OpenPhotosArguments },
  [IPC_CHANNELS.revealDataFolder]: { mode: 'invoke', args: NoArguments },
};

export const ALLOWED_CHANNELS = Object.keys(ALLOWLIST) as IpcChannel[];

export class IpcRejectedError extends Error {
  override name = 'IpcRejectedError';
}

interface SenderLike {
  senderFrame: { url: string; parent: unknown } | null;
}

/**
 * Checks one call against the allowlist and runs its handler. Calls from other channels, other origins,
 * subframes, or with arguments outside the channel's schema are rejected before any handler runs.
 */
export function dispatch(
  handlers: IpcHandlers,
  appOrigin: AppOrigin,
  channel: string,
  event: SenderLike,
  args: unknown[],
): unknown {
  const entry = (ALLOWLIST as Record<string, (typeof ALLOWLIST)[IpcChannel] | undefined>)[channel];
  if (!entry) throw new IpcRejectedError(`IPC channel not allowed: ${channel}`);
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null || !isAppUrl(frame.url, appOrigin())) {
    throw new IpcRejectedError(`IPC call on ${channel} from outside the app's page`);
  }
  if (!Value.Check(entry.args, args)) throw new IpcRejectedError(`Invalid arguments for ${channel}`);
  switch (channel as IpcChannel) {
    case IPC_CHANNELS.session:
      return handlers.session();
    case IPC_CHANNELS.openPhotos:
      return handlers.openPhotos((args[0] as { multiple?: boolean } | undefined) ?? {});
    case IPC_CHANNELS.revealDataFolder:
      return handlers.revealDataFolder();
  }
}

/** Registers exactly the allowlisted channels; returns a function that removes them again. */
export function registerIpcHandlers(
  ipcMain: IpcMain,
  handlers: IpcHandlers,
  appOrigin: AppOrigin,
  onRejected: (err: unknown) => void = () => {},
): () => void {
  for (const channel of ALLOWED_CHANNELS) {
    if (ALLOWLIST[channel].mode === 'sync') {
      ipcMain.on(channel, (event: IpcMainEvent, ...args: unknown[]) => {
        // A synchronous caller waits for returnValue, so a rejection still has to answer (with null).
        try {
          event.returnValue = dispatch(handlers, appOrigin, channel, event, args);
        } catch (err) {
          onRejected(err);
          event.returnValue = null;
        }
      });
    } else {
      ipcMain.handle(channel, async (event: IpcMainInvokeEvent, ...args: unknown[]) => {
        try {
          return await dispatch(handlers, appOrigin, channel, event, args);
        } catch (err) {
          onRejected(err);
          throw err;
        }
      });
    }
  }
  return () => {
    for (const channel of ALLOWED_CHANNELS) {
      if (ALLOWLIST[channel].mode === 'sync') ipcMain.removeAllListeners(channel);
      else ipcMain.removeHandler(channel);
    }
  };
}
